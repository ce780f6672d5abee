#!/usr/bin/env bash
# Issue 25 on an H100, one lease: files to histograms with default flags, the one-pass decode alone
# (after, 5672a11 + Exif turn) against it with the small transfers pinned (pinned, 2ee… ), three
# rounds alternating on 24,000 ~640-px JPEGs, two on 2,400 of 1600 x 1200; the limits (decode-only,
# device-only); bovw's CPU path and OpenCV's BOW pipeline on 2,400; index --keypoints; the start-up
# of a one-shot `bovw search` (default flags, and the GPU forced) with a JPEG and a PNG query.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
J=.device/jp
chmod +x $J/*/*
echo "== 1. host"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^(Model name|CPU\(s\)|Thread\(s\) per core)"
w=/tmp/jp
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$J/pinned/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$J/pinned/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
histograms() {  # SET ROUND SIDES...
  local set=$1 round=$2 n b s e; shift 2
  n=$(ls $w/$set/*.jpg | wc -l)
  for b in "$@"; do
    s=$(date +%s%N); $J/$b/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_${set}_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "$set ($n images), $b run $round: $(rate $n $((e - s))) images/s"
  done
}
echo "== 2. 24,000 ~640-px JPEGs, default flags"
for r in 1 2 3; do histograms many $r after pinned; done
cmp $w/h_many_after.npy $w/h_many_pinned.npy && echo "many: histograms identical"
echo "pinned --profile:"; $J/pinned/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
echo "decode-only:"; $J/pinned/bovw_decode_bench --rounds 3 $w/many 2>&1 | tail -1
echo "== 3. 2,400 of 1600 x 1200"
for r in 1 2; do histograms large $r after pinned; done
cmp $w/h_large_after.npy $w/h_large_pinned.npy && echo "large: histograms identical"
echo "pinned --profile:"; $J/pinned/bovw histogram --images $w/large --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
echo "decode-only:"; $J/pinned/bovw_decode_bench --rounds 3 $w/large 2>&1 | tail -1
echo "== 4. 2,400 ~640-px: default flags, bovw's CPU path, OpenCV's BOW pipeline"
histograms small 1 pinned
s=$(date +%s%N); $J/pinned/bovw histogram --images $w/small --vocabulary $w/v.bovw --quiet --surf-backend builtin --backend openmp --output $w/h_cpu.npy > /dev/null 2>&1; e=$(date +%s%N)
echo "bovw CPU path (builtin SURF, OpenMP): $(rate 2400 $((e - s))) images/s"
cmp $w/h_small_pinned.npy $w/h_cpu.npy && echo "small: default flags and the CPU path identical"
echo "OpenCV BOW: $($J/pinned/opencv_bow_baseline $w/small $w/small/GROUPS.csv --words 1000 --seed 1 2>/dev/null | tr -d '\n')"
echo "== 5. index --keypoints, 24,000"
n=$(ls $w/many/*.jpg | wc -l)
for b in after pinned; do
  s=$(date +%s%N); $J/$b/bovw index $w/many --vocabulary $w/v.bovw --keypoints --quiet --output $w/db_$b.bovwdb > /dev/null 2>&1 || echo "$b index failed"; e=$(date +%s%N)
  echo "index --keypoints, $b: $(rate $n $((e - s))) images/s"
done
cmp $w/db_after.bovwdb $w/db_pinned.bovwdb && echo "databases identical"
echo "== 6. one-shot search start-up (the quick start's database: opencv-doc's 91 images, K = 500)"
$J/pinned/bovw train .device/docs --words 500 --max-descriptors 100000 --seed 1 --quiet --output $w/v500.bovw 2>&1 | tail -1
$J/pinned/bovw index .device/docs --vocabulary $w/v500.bovw --keypoints --quiet --output $w/docs.bovwdb 2>&1 | tail -1
for q in .device/docs/graf1.png .device/docs/baboon.jpg; do
  echo "-- $q, default flags"; python3 bench/startup/search_startup.py --index $w/docs.bovwdb --query $q --bovw pinned=$J/pinned/bovw --repeats 9 2>&1 | tail -3
  echo "-- $q, --backend opencl"; python3 bench/startup/search_startup.py --index $w/docs.bovwdb --query $q --bovw pinned=$J/pinned/bovw --repeats 5 --args "--backend opencl" 2>&1 | tail -3
done
$J/pinned/bovw search --index $w/docs.bovwdb --profile --top 3 .device/docs/baboon.jpg 2>&1 | grep -E "profile" | head -3
