#!/usr/bin/env bash
# Issue 25: JPEGs checked and decoded in one libjpeg pass (after: 5672a11 and the Exif turn) against
# the check, then OpenCV's decode (before: 2dbc96e), alternating in one lease. 1. the host; 2. the
# decode-only rate; 3. files to histograms with default flags, 24,000 ~640-px JPEGs, three rounds,
# and each side's --profile; 4. 2,400 of 1600 x 1200; 5. `index --keypoints`; 6. the CPU path on
# 2,400; 7. device-batch and pipeline-batch sizes (after only).
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
chmod +x $J/*/*
echo "== 1. host"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|CPU max MHz)"
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$J/after/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$J/after/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
echo "== 2. decode-only (the route's 16 workers into its pinned staging, no device work)"
for b in before after; do echo "$b:"; $J/$b/bovw_decode_bench --rounds 3 $w/many 2>&1 | tail -2; done
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
histograms() {  # SET ROUND SIDES...
  local set=$1 round=$2 n b s e; shift 2
  n=$(ls $w/$set/*.jpg | wc -l)
  for b in "$@"; do
    s=$(date +%s%N); $J/$b/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_${set}_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "$set ($n images), $b run $round: $(rate $n $((e - s))) images/s"
  done
}
echo "== 3. files to histograms, default flags, 24,000"
for r in 1 2 3; do histograms many $r before after; done
cmp $w/h_many_before.npy $w/h_many_after.npy && echo "many: histograms identical"
for b in before after; do
  echo "$b --profile:"; $J/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
done
echo "== 4. 2,400 of 1600 x 1200"
for r in 1 2; do histograms large $r before after; done
cmp $w/h_large_before.npy $w/h_large_after.npy && echo "large: histograms identical"
echo "after --profile:"; $J/after/bovw histogram --images $w/large --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
for b in before after; do echo "$b decode-only:"; $J/$b/bovw_decode_bench --rounds 3 $w/large 2>&1 | tail -1; done
echo "== 5. index --keypoints, 24,000"
n=$(ls $w/many/*.jpg | wc -l)
for b in before after; do
  s=$(date +%s%N); $J/$b/bovw index $w/many --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(date +%s%N)
  echo "index --keypoints, $b: $(rate $n $((e - s))) images/s"
done
cmp $w/db_before.bovwdb $w/db_after.bovwdb && echo "databases identical"
echo "== 6. the CPU path (builtin SURF, OpenMP) on 2,400 ~640-px"
histograms small 1 after
s=$(date +%s%N); $J/after/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --surf-backend builtin --backend openmp --output $w/h_cpu.npy > /dev/null 2>&1; e=$(date +%s%N)
echo "CPU path: $(rate 2400 $((e - s))) images/s"
cmp $w/h_small_after.npy $w/h_cpu.npy && echo "small: default flags and the CPU path identical"
echo "== 7. batch sizes (after), 24,000"
for flags in "--device-batch-pixels 32000000" "--device-batch-pixels 8000000" "--batch 512"; do
  s=$(date +%s%N); $J/after/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet $flags --output $w/h_f.npy > /dev/null 2>&1; e=$(date +%s%N)
  echo "$flags: $(rate $n $((e - s))) images/s"; cmp -s $w/h_f.npy $w/h_many_after.npy || echo "  differs"
done
