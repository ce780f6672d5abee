#!/bin/bash
# quality sets for the estimator comparison: UKBench-style 7, 11, 13 and clutter 5, 6, 7 at K = 1000
set -e
B=/work/main/build/bovw
cd /tmp/gq
for S in 7 11 13; do
  [ -d ukb-$S ] || /usr/bin/python3 /work/main/bench/retrieval/make_ukbench_set.py ukb-$S --seed $S > /dev/null
  [ -f V-ukb-$S.bovw ] || $B train ukb-$S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output V-ukb-$S.bovw
  [ -f ukb-$S.bovwdb ] || $B index ukb-$S --vocabulary V-ukb-$S.bovw --keypoints --quiet --output ukb-$S.bovwdb
done
for S in 5 6 7; do
  [ -d clutter-$S ] || /usr/bin/python3 /work/main/bench/retrieval/make_clutter_set.py clutter-$S --seed $S > /dev/null
  [ -f V-clutter-$S.bovw ] || $B train clutter-$S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output V-clutter-$S.bovw
  [ -f clutter-$S.bovwdb ] || $B index clutter-$S --vocabulary V-clutter-$S.bovw --keypoints --quiet --output clutter-$S.bovwdb
done
echo setup done
