#!/bin/bash
# Issue 26, weak geometric consistency: the databases. UKBench-style sets (seeds 7, 11, 13) and their
# K = 1,000 vocabularies from verification_2026-11-26/run.sh (make_ukbench_set.py --seed S; bovw train
# --words 1000 --max-descriptors 200000 --seed 1), indexed again with --keypoints by this build (format
# version 5: keypoints with scale and angle); the clutter sets 5, 6, 7 (make_clutter_set.py --seed S)
# trained as quality_sweep.py trains them (K = 1,000, 200,000 descriptors, seed 1) and indexed alike.
set -e
B=${B:-/work/h44/build/bovw}
W=${W:-/tmp/h44m}
cd $W
for S in 7 11 13; do
  [ -d ukb-$S ] || /usr/bin/python3 /work/h44/bench/retrieval/make_ukbench_set.py ukb-$S --seed $S > /dev/null
  [ -f V-$S.bovw ] || $B train ukb-$S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output V-$S.bovw
  [ -f K-$S.bovwdb ] || $B index ukb-$S --vocabulary V-$S.bovw --keypoints --quiet --output K-$S.bovwdb
done
for S in 5 6 7; do
  [ -d clutter$S ] || /usr/bin/python3 /work/h44/bench/retrieval/make_clutter_set.py clutter$S --seed $S > /dev/null
  [ -f CV-$S.bovw ] || $B train clutter$S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output CV-$S.bovw
  [ -f CK-$S.bovwdb ] || $B index clutter$S --vocabulary CV-$S.bovw --keypoints --quiet --output CK-$S.bovwdb
done
# The quick start's database, as examples/quickstart.sh builds it.
[ -f quickstart/index.bovwdb ] || bash /work/h44/examples/quickstart.sh $W/quickstart > quickstart.log 2>&1
