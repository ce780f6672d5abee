#!/usr/bin/env bash
# Issue 25, third run: the small transfers through pinned memory (pinned: the table uploads, the
# keypoint count and the re-check counts) against the one-pass decode alone (after), 24,000 ~640-px
# JPEGs, default flags, three rounds alternating, and pinned with device batches of 32 Mpx; the
# idle-gap diagnostic of pinned (diag_timeline.patch on it); 2,400 of 1600 x 1200 and index --keypoints.
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
$J/after/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$J/after/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
n=$(ls $w/many/*.jpg | wc -l)
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
echo "== 1. the device's idle gaps, pinned (diagnostic build, --profile)"
BOVW_DIAG_TIMELINE=1 $J/diag2/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/d.npy 2>&1 | grep -E "^(diag:|diag gap|profile)"
echo "== 2. files to histograms, 24,000, three rounds alternating"
for r in 1 2 3; do
  for side in after pinned pinned32; do
    b=${side%32}; extra=; [ "$side" = pinned32 ] && extra="--device-batch-pixels 32000000"
    s=$(date +%s%N); $J/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet $extra --output $w/h_$side.npy > /dev/null 2>&1 || echo "$side failed"; e=$(date +%s%N)
    echo "$side, run $r: $(rate $n $((e - s))) images/s"
  done
done
cmp $w/h_after.npy $w/h_pinned.npy && cmp $w/h_after.npy $w/h_pinned32.npy && cmp $w/h_after.npy $w/d.npy && echo "histograms identical"
for side in pinned pinned32; do
  b=${side%32}; extra=; [ "$side" = pinned32 ] && extra="--device-batch-pixels 32000000"
  echo "$side --profile:"; $J/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile $extra --output $w/p.npy 2>&1 | grep "^profile"
done
echo "== 3. 2,400 of 1600 x 1200, two rounds"
for r in 1 2; do
  for b in after pinned; do
    s=$(date +%s%N); $J/$b/bovw histogram --images $w/large --vocabulary $w/v.bovw --quiet --output $w/l_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "large, $b, run $r: $(rate 2400 $((e - s))) images/s"
  done
done
cmp $w/l_after.npy $w/l_pinned.npy && echo "large: histograms identical"
echo "== 4. index --keypoints, 24,000"
for b in after pinned; do
  s=$(date +%s%N); $J/$b/bovw index $w/many --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(date +%s%N)
  echo "index --keypoints, $b: $(rate $n $((e - s))) images/s"
done
cmp $w/db_after.bovwdb $w/db_pinned.bovwdb && echo "databases identical"
