#!/usr/bin/env bash
# Issue 25 (files to histograms with default flags against its limit, pinned staging) and issue 24
# (tiled-tf32's new default) in one lease. Expectations: journal 2026-11-27.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
nproc
echo "== issue 25: pipeline limits (default flags, decode-only, device-only), 800 px and 1600 x 1200"
BOVW_ROUNDS=3 bash bench/surf/pipeline_limits.sh .device/build .device/set 16 /tmp/libs > $OUT/limits.txt 2>&1
echo "exit $?"; grep -v "^\[" $OUT/limits.txt | tail -40
echo "== before (yesterday's binary, pageable uploads) and the CPU path, same folder, same vocabulary"
w=/tmp/bovw_limits
for r in 1 2 3; do
  s=$(date +%s%N); .device/bin/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --output /tmp/hb.npy >/dev/null 2>&1; e=$(date +%s%N)
  echo "before, default flags, run $r: $(awk -v n=$(ls $w/small/*.jpg | wc -l) -v t=$((e-s)) 'BEGIN{printf "%.1f", n/(t/1e9)}') images/s"
  s=$(date +%s%N); .device/build/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --output /tmp/ha.npy >/dev/null 2>&1; e=$(date +%s%N)
  echo "after, default flags, run $r: $(awk -v n=$(ls $w/small/*.jpg | wc -l) -v t=$((e-s)) 'BEGIN{printf "%.1f", n/(t/1e9)}') images/s"
done
cmp /tmp/hb.npy /tmp/ha.npy && echo "before and after: identical histograms"
s=$(date +%s%N); .device/build/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --surf-backend builtin --backend openmp-tiled --output /tmp/hc.npy >/dev/null 2>&1; e=$(date +%s%N)
echo "CPU path (builtin SURF, openmp-tiled), 1 run: $(awk -v n=$(ls $w/small/*.jpg | wc -l) -v t=$((e-s)) 'BEGIN{printf "%.1f", n/(t/1e9)}') images/s"
cmp /tmp/hc.npy /tmp/ha.npy && echo "CPU path and default flags: identical histograms"
.device/build/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --profile --output /tmp/hp.npy 2>&1 | grep "^profile" > $OUT/profile_after.txt
.device/bin/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --profile --output /tmp/hp.npy 2>&1 | grep "^profile" > $OUT/profile_before.txt
echo "-- profile after"; cat $OUT/profile_after.txt; echo "-- profile before"; cat $OUT/profile_before.txt
echo "== issue 24: tiled-tf32"
export BOVW_DEVICE=NVIDIA
bash .device/tf32_confirm.sh
