#!/bin/bash
# GV_METHOD: as in compare.sh (a scratch build's hook; --estimator fast|magsac makes the same call).
# the quick start's database (K = 500, keypoints), every image as a query, top 50 verified: which
# results verify under each estimator
set -e
B=/work/main/build/bovw
D=/usr/share/doc/opencv-doc/examples/data
cd /tmp/gq
[ -f qs-vocabulary.bovw ] || $B train $D --words 500 --max-descriptors 100000 --seed 1 --quiet --output qs-vocabulary.bovw
[ -f qs.bovwdb ] || $B index $D --vocabulary qs-vocabulary.bovw --keypoints --quiet --output qs.bovwdb
for m in 38 35; do
  GV_METHOD=$m $B search --index qs.bovwdb --top 50 --verify 50 --exclude-query --threads 1 --quiet --profile $D > qs-$m.csv 2> qs-$m.err
done
echo quick done
