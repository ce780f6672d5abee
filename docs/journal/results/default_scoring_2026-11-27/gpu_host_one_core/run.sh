#!/usr/bin/env bash
# Issue 26: query time of the default scoring (and WGC, intersection) with the top 50 verified, on one
# core of the GPU host (taskset), UKBench-style sets 7/11/13, K = 1,000; the sets indexed here with
# this build (database version 5: keypoints with scale and angle). Extraction on the GPU (not timed).
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
B=$PWD/.device/eval/bovw
cd .device/eval
lscpu | grep -E "Model name|^CPU\(s\)"; uptime
for S in 7 11 13; do
  $B index ukb-$S --vocabulary V-ukb-$S.bovw --keypoints --quiet --output K5-ukb-$S.bovwdb > /dev/null || exit 1
  taskset -c 3 $B evaluate --index K5-ukb-$S.bovwdb --groups ukb-$S/GROUPS.csv \
    --scoring auto,hamming20+log+wgc,intersection --verify 50 --quiet --json $OUT/ukb-$S.json > $OUT/ukb-$S.txt 2>&1
  echo "set $S rc=$?"; cat $OUT/ukb-$S.txt
done
uptime
