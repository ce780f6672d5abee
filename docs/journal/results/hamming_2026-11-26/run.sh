#!/bin/bash
# Issue 26, first stage: Hamming-embedding scoring against intersection, plain and with the top 50
# verified, on the UKBench-style sets of verification_2026-11-26/run.sh (seeds 7, 11, 13, K = 1,000,
# indexed with --keypoints), and box.png's rank for box_in_scene.png on the quick start's database.
set -e
B=/work/h26/build/bovw
cd /tmp/v26
for S in 7 11 13; do
  $B evaluate --index K-$S.bovwdb --groups ukb-$S/GROUPS.csv --verify 50 --quiet \
    --scoring intersection,hamming16+sqrt,hamming20+sqrt,hamming16+log,hamming20+log,hamming24+log \
    --json he-$S.json > he-$S.txt
done
I=/usr/share/doc/opencv-doc/examples/data
for s in intersection hamming12 hamming16 hamming20 hamming24 hamming12+sqrt hamming16+sqrt hamming20+sqrt \
         hamming16+log hamming20+log hamming24+log; do
  $B search --index QUICKSTART/index.bovwdb --top 91 --scoring $s --output r.csv $I/box_in_scene.png --quiet
  echo "$s: box.png rank $(awk -F, '$3 ~ /\/box.png$/ {print $2}' r.csv)"
done
