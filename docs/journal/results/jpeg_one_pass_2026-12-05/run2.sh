#!/usr/bin/env bash
# Issue 25, second run: where the fused route's device idles (a diagnostic build, diag_timeline.patch
# on 5a0… (the one-pass decode): every batch's stage intervals from device timestamps, the idle gaps
# between them summed by the stages on either side), and device batches of 16 (default) against
# 24 and 32 Mpx, three rounds alternating.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
chmod +x $J/*/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$J/after/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
n=$(ls $w/many/*.jpg | wc -l)
echo "== 1. the device's idle gaps (diagnostic build, --profile)"
BOVW_DIAG_TIMELINE=1 $J/diag/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/d.npy 2>&1 | grep -E "^(diag|profile)" | head -100
echo "== 2. device batch pixels, 24,000, three rounds alternating"
for r in 1 2 3; do
  for px in 16000000 24000000 32000000; do
    s=$(date +%s%N); $J/after/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --device-batch-pixels $px --output $w/h_$px.npy > /dev/null 2>&1 || echo "$px failed"; e=$(date +%s%N)
    echo "$px px, run $r: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s"
  done
done
cmp $w/h_16000000.npy $w/h_32000000.npy && cmp $w/h_16000000.npy $w/h_24000000.npy && cmp $w/h_16000000.npy $w/d.npy && echo "histograms identical"
echo "32 Mpx --profile:"; $J/after/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --device-batch-pixels 32000000 --output $w/p.npy 2>&1 | grep "^profile"
