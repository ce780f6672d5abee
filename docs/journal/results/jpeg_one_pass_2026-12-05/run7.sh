#!/usr/bin/env bash
# Issue 25's measurement with the final code of the day (cap32: the one-pass decode, pinned small
# transfers, device batches of 32 Mpx capped by the device's memory), one lease, default flags:
# 24,000 ~640-px JPEGs three times, with the limits (decode-only; device-only from --profile);
# 2,400 of 1600 x 1200 twice, with its limits; on 2,400 ~640-px, bovw's CPU path and OpenCV's BOW
# pipeline (identical histograms for the CPU path); index --keypoints on 24,000 twice.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
B=$J/cap32/bovw
chmod +x $J/*/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^(Model name|CPU\(s\))"
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$J/pinned/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$B train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
for set in many large; do
  n=$(ls $w/$set/*.jpg | wc -l)
  echo "== $set: $n images"
  for r in 1 2 3; do
    [ $set = large ] && [ $r = 3 ] && continue
    s=$(date +%s%N); $B histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_$set.npy > /dev/null 2>&1 || echo "failed"; e=$(date +%s%N)
    echo "default flags, run $r: $(rate $n $((e - s))) images/s"
  done
  echo "--profile:"; $B histogram --images $w/$set --vocabulary $w/v.bovw --quiet --profile --output $w/p_$set.npy 2>&1 | grep "^profile"
  cmp $w/h_$set.npy $w/p_$set.npy && echo "histograms identical across runs"
  echo "decode-only:"; $J/pinned/bovw_decode_bench --rounds 3 $w/$set 2>&1 | tail -1
done
echo "== 2,400 ~640-px: default flags, bovw's CPU path, OpenCV's BOW pipeline"
s=$(date +%s%N); $B histogram --images $w/small --vocabulary $w/v.bovw --quiet --output $w/h_small.npy > /dev/null 2>&1; e=$(date +%s%N)
echo "default flags: $(rate 2400 $((e - s))) images/s"
s=$(date +%s%N); $B histogram --images $w/small --vocabulary $w/v.bovw --quiet --surf-backend builtin --backend openmp --output $w/h_cpu.npy > /dev/null 2>&1; e=$(date +%s%N)
echo "bovw CPU path (builtin SURF, OpenMP): $(rate 2400 $((e - s))) images/s"
cmp $w/h_small.npy $w/h_cpu.npy && echo "default flags and the CPU path identical"
echo "OpenCV BOW: $($J/pinned/opencv_bow_baseline $w/small $w/small/GROUPS.csv --words 1000 --seed 1 2>/dev/null | tr -d '\n')"
echo "== index --keypoints, 24,000"
for r in 1 2; do
  rm -f $w/db.bovwdb
  s=$(date +%s%N); $B index $w/many --vocabulary $w/v.bovw --keypoints --quiet --output $w/db.bovwdb > /dev/null 2>&1 || echo "index failed"; e=$(date +%s%N)
  echo "index --keypoints, run $r: $(rate 24000 $((e - s))) images/s"
done
