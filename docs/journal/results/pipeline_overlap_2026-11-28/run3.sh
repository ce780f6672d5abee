#!/usr/bin/env bash
# Issue 25, third run: before (.device/pipe/before_bovw: the morning's build), after2 (batch n + 1
# started before batch n's count is waited for; changing tables uploaded into kept buffers) and
# after3 (also: read-backs into pinned memory; --profile prints the device's timeline), alternating,
# on 24,000 small JPEGs (histograms, then index --keypoints) and 2,400 (index --keypoints).
# Expectations: docs/journal/2026-11-28.md ("Day session").
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/mpilibs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
nproc
declare -A bin=([before]=.device/pipe/before_bovw [after2]=.device/pipe/after2/bovw [after3]=.device/pipe/after3/bovw)
order=(before after2 after3)
w=/tmp/overlap
mkdir -p $w
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
${bin[after3]} train $w/small --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1 || exit 1
now() { date +%s%N; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
n=24000
for r in 1 2 3; do
  for b in "${order[@]}"; do
    s=$(now); ${bin[$b]} histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(now)
    echo "many $b run $r: $(rate $n $((e - s))) images/s ($(( (e - s) / 1000000 )) ms)"
  done
done
cmp $w/h_before.npy $w/h_after2.npy && cmp $w/h_after2.npy $w/h_after3.npy && echo "many: before, after2 and after3 identical"
for b in before after3; do
  echo "-- many $b --profile"
  ${bin[$b]} histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
done
echo "-- small after3 --profile"
${bin[after3]} histogram --images $w/small --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
for set in small many; do
  m=$(ls $w/$set/*.jpg | wc -l)
  for r in 1 2; do
    for b in before after3; do
      rm -f $w/db_$b.bovwdb
      s=$(now); ${bin[$b]} index $w/$set --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(now)
      echo "index --keypoints $set $b run $r: $(rate $m $((e - s))) images/s"
    done
  done
  cmp $w/db_before.bovwdb $w/db_after3.bovwdb && echo "index databases ($set) identical"
done
echo "-- index --keypoints many after3 --profile"
${bin[after3]} index $w/many --vocabulary $w/v.bovw --keypoints --quiet --profile --output $w/db_p.bovwdb 2>&1 | grep "^profile"
