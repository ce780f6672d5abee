#!/usr/bin/env bash
# Issue 25: device batches of 16 Mpx (cap16: the default until now) against 32 (cap32: the same code,
# default 32 Mpx), each with the device-memory cap (which leaves both sizes as they are on this GPU),
# on every route that cuts device batches, default flags: histogram and index --keypoints on 24,000
# ~640-px JPEGs, extract on 2,400; three rounds alternating.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
chmod +x $J/*/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$J/cap16/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
for r in 1 2 3; do
  for b in cap16 cap32; do
    s=$(date +%s%N); $J/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$b.npy > /dev/null 2>&1 || echo "histogram $b failed"; e=$(date +%s%N)
    echo "histogram, $b, run $r: $(rate 24000 $((e - s))) images/s"
  done
  for b in cap16 cap32; do
    rm -f $w/db_$b.bovwdb
    s=$(date +%s%N); $J/$b/bovw index $w/many --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "index $b failed"; e=$(date +%s%N)
    echo "index --keypoints, $b, run $r: $(rate 24000 $((e - s))) images/s"
  done
  for b in cap16 cap32; do
    rm -rf $w/x_$b
    s=$(date +%s%N); $J/$b/bovw extract $w/small -o $w/x_$b --format npy > /dev/null 2>&1 || echo "extract $b failed"; e=$(date +%s%N)
    echo "extract (2,400), $b, run $r: $(rate 2400 $((e - s))) images/s"
  done
done
cmp $w/h_cap16.npy $w/h_cap32.npy && cmp $w/db_cap16.bovwdb $w/db_cap32.bovwdb && diff -rq $w/x_cap16 $w/x_cap32 && echo "outputs identical"
