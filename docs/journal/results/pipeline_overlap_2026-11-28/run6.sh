#!/usr/bin/env bash
# Issue 25, sixth run: `index --keypoints` before (.device/pipe/before_bovw: the morning's build) and
# after6 (the fused route of today and keypoint adds 2.2x faster), alternating, three rounds, on 24,000
# and 2,400 small JPEGs, databases compared; after6's profile.
# Expectations: docs/journal/2026-11-28.md ("Day session").
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/mpilibs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
declare -A bin=([before]=.device/pipe/before_bovw [after6]=.device/pipe/after6/bovw)
w=/tmp/overlap
mkdir -p $w
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
${bin[after6]} train $w/small --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1 || exit 1
now() { date +%s%N; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
for set in many small; do
  m=$(ls $w/$set/*.jpg | wc -l)
  for r in 1 2 3; do
    for b in before after6; do
      rm -f $w/db_$b.bovwdb
      s=$(now); ${bin[$b]} index $w/$set --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(now)
      echo "index --keypoints $set $b run $r: $(rate $m $((e - s))) images/s"
    done
  done
  cmp $w/db_before.bovwdb $w/db_after6.bovwdb && echo "index databases ($set) identical"
done
echo "-- index --keypoints many after6 --profile"
${bin[after6]} index $w/many --vocabulary $w/v.bovw --keypoints --quiet --profile --output $w/db_p.bovwdb 2>&1 | grep "^profile"
