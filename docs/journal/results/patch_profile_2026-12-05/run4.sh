#!/usr/bin/env bash
# Issue 25: where a `bovw histogram --images` process's time goes outside the pipeline, by the new
# --profile steps (df6060f: process start to the files written), and the same process with one
# extractor instead of two (head, df6060f) against cf37899 (next2), two rounds alternating, on
# 24,000 and 2,400 ~640-px JPEGs.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
S=.device/prof4
chmod +x $S/*/*
w=/tmp/prof4
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$S/head/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
for set in many small; do
  n=$(ls $w/$set/*.jpg | wc -l)
  for r in 1 2; do
    for b in next2 head; do
      s=$(date +%s%N); $S/$b/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
      echo "$set ($n images), $b run $r: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s"
    done
  done
  cmp $w/h_next2.npy $w/h_head.npy && echo "$set: histograms identical"
  for r in 1 2; do
    echo "$set head --profile, run $r:"; $S/head/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
  done
done
