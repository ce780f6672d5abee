#!/bin/bash
# Issue 26: verification that rejects chance. UKBench-style sets (seeds 7, 11, 13), K = 1,000,
# indexed with keypoints; evaluate --verify 50 with the inlier count plus fold/mirror checks only
# (permissive) and with the defaults (a-contrario + scale/squeeze), and with stricter NFA.
set -e
B=/work/main/build/bovw
cd /tmp/v26
for S in 7 11 13; do
  [ -d ukb-$S ] || /usr/bin/python3 /work/main/bench/retrieval/make_ukbench_set.py ukb-$S --seed $S > /dev/null
  [ -f V-$S.bovw ] || $B train ukb-$S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output V-$S.bovw
  [ -f K-$S.bovwdb ] || $B index ukb-$S --vocabulary V-$S.bovw --keypoints --quiet --output K-$S.bovwdb
  $B evaluate --index K-$S.bovwdb --groups ukb-$S/GROUPS.csv --verify 50 --quiet --max-false-alarms 1000000 --max-scale-change 1000000 --json perm-$S.json > perm-$S.txt
  $B evaluate --index K-$S.bovwdb --groups ukb-$S/GROUPS.csv --verify 50 --quiet --json def-$S.json > def-$S.txt
  $B evaluate --index K-$S.bovwdb --groups ukb-$S/GROUPS.csv --verify 50 --quiet --max-false-alarms -5 --json nfa5-$S.json > nfa5-$S.txt
done
echo done
