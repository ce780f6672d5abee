#!/usr/bin/env bash
# Issue 25: what a `bovw histogram --images` process spends after its last --profile step: the
# release of the extractor and histogrammer as a step of its own (release: pinned + that step), and
# the process's exit after it (the wall time from outside less the profile's total), three runs.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
chmod +x $J/*/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$J/pinned/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
for r in 1 2 3; do
  s=$(date +%s%N); $J/release/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/h.npy 2> $w/err.txt > /dev/null; e=$(date +%s%N)
  total=$(grep -o "profile: [0-9.]* s since" $w/err.txt | awk '{print $2}')
  echo "run $r: wall $(awk -v t=$((e - s)) 'BEGIN {printf "%.3f", t / 1e9}') s, 24000 / wall = $(awk -v t=$((e - s)) 'BEGIN {printf "%.1f", 24000 / (t / 1e9)}') images/s; the profile's total $total s"
  grep "since the process" $w/err.txt | sed 's/.*started: //'
done
