#!/bin/bash
# Issue 26: query expansion from verified results (Chum et al., ICCV 2007) against verification alone.
# UKBench-style sets (seeds 7, 11, 13) and clutter sets (5, 6, 7), K = 1,000 (training seed 1, 200,000
# descriptors), indexed with --keypoints; evaluate --verify 50 with --expand 3 and --expand 5, each under
# intersection and hamming20+log. Each evaluate prints, per scoring, the plain ranking, the top 50
# verified, and the same expanded (the rows of --expand 3 and 5 differ only there).
set -e
B=${BOVW:-/tmp/h45qe/bovw}
SRC=${SRC:-/work/h45}
W=${WORK:-/tmp/h45qe}
OUT=$SRC/docs/journal/results/query_expansion_2026-11-27
cd $W
for S in ukb-7 ukb-11 ukb-13 clutter-5 clutter-6 clutter-7; do
  seed=${S#*-}
  if [ ! -d $S ]; then
    case $S in
      ukb-*) /usr/bin/python3 $SRC/bench/retrieval/make_ukbench_set.py $S --seed $seed > /dev/null ;;
      clutter-*) /usr/bin/python3 $SRC/bench/retrieval/make_clutter_set.py $S --seed $seed > /dev/null ;;
    esac
  fi
  [ -f V-$S.bovw ] || $B train $S --words 1000 --max-descriptors 200000 --seed 1 --quiet --output V-$S.bovw
  [ -f K-$S.bovwdb ] || $B index $S --vocabulary V-$S.bovw --keypoints --quiet --output K-$S.bovwdb
  for E in 3 5; do
    $B evaluate --index K-$S.bovwdb --groups $S/GROUPS.csv --scoring intersection,hamming20+log --verify 50 \
      --expand $E --quiet --json $OUT/$S-expand$E.json > $OUT/$S-expand$E.txt
  done
  echo "$S done: load $(cut -d' ' -f1-3 /proc/loadavg)"
done
