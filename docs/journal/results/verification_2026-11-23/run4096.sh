#!/bin/bash
# K = 4096 on the three UKBench-style sets: train, index with keypoints, evaluate plain and verified.
B=/work/main/build/bovw
for S in 7 11 13; do
  $B train /tmp/scoring-ukb-$S --words 4096 --max-descriptors 200000 --seed 1 --backend openmp-tiled --quiet --output V4096-$S.bovw
  $B index /tmp/scoring-ukb-$S --vocabulary V4096-$S.bovw --keypoints --quiet --output K4096-$S.bovwdb
  $B evaluate --index K4096-$S.bovwdb --groups /tmp/scoring-ukb-$S/GROUPS.csv --scoring all --verify 50 --quiet --json K4096-$S.json
done
for S in 11 13; do
  $B index /tmp/scoring-ukb-$S --vocabulary /tmp/scoring-measure/V-$S.bovw --keypoints --quiet --output K1000-$S.bovwdb
  $B evaluate --index K1000-$S.bovwdb --groups /tmp/scoring-ukb-$S/GROUPS.csv --scoring intersection --verify 50 --quiet --json K1000-$S.json
done
