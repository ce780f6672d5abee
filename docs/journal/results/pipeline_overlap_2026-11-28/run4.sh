#!/usr/bin/env bash
# Issue 25, fourth run: before (.device/pipe/before_bovw: the morning's build) and after4 (this
# session's fused route: batches started before the previous one's count is waited for, tables
# uploaded into kept buffers, pinned read-backs, the last batch of each pipeline batch finished before
# the next one's images are waited for, the grouping in chunks), alternating, three rounds, on 2,400
# small JPEGs, the same resized to 1600 x 1200, and 24,000 small JPEGs; after4's profiles; index
# --keypoints on 2,400 and 24,000; the CPU path's histograms as the reference.
# Expectations: docs/journal/2026-11-28.md ("Day session").
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/mpilibs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nproc
declare -A bin=([before]=.device/pipe/before_bovw [after4]=.device/pipe/after4/bovw)
order=(before after4)
w=/tmp/overlap
mkdir -p $w
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
.device/pipe/after4/bench/surf/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
${bin[after4]} train $w/small --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1 || exit 1
now() { date +%s%N; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
for set in small large many; do
  n=$(ls $w/$set/*.jpg | wc -l)
  echo "== $set: $n images"
  for r in 1 2 3; do
    for b in "${order[@]}"; do
      s=$(now); ${bin[$b]} histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_${set}_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(now)
      echo "$set $b run $r: $(rate $n $((e - s))) images/s ($(( (e - s) / 1000000 )) ms)"
    done
  done
  cmp $w/h_${set}_before.npy $w/h_${set}_after4.npy && echo "$set: before and after4 identical"
  echo "-- $set after4 --profile"
  ${bin[after4]} histogram --images $w/$set --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
done
echo "== CPU path on small (builtin SURF, openmp)"
s=$(now); ${bin[after4]} histogram --images $w/small --vocabulary $w/v.bovw --quiet --surf-backend builtin --backend openmp --output $w/h_cpu.npy > /dev/null 2>&1; e=$(now)
echo "CPU path: $(rate 2400 $((e - s))) images/s"
cmp $w/h_cpu.npy $w/h_small_after4.npy && echo "CPU path and after4: identical histograms"
echo "== decode-only"
.device/pipe/after4/bench/surf/bovw_decode_bench --rounds 3 $w/small | tail -1
.device/pipe/after4/bench/surf/bovw_decode_bench --rounds 3 $w/many | tail -1
for set in small many; do
  m=$(ls $w/$set/*.jpg | wc -l)
  for r in 1 2; do
    for b in before after4; do
      rm -f $w/db_$b.bovwdb
      s=$(now); ${bin[$b]} index $w/$set --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(now)
      echo "index --keypoints $set $b run $r: $(rate $m $((e - s))) images/s"
    done
  done
  cmp $w/db_before.bovwdb $w/db_after4.bovwdb && echo "index databases ($set) identical"
done
