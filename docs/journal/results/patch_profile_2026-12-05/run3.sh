#!/usr/bin/env bash
# Issue 25, third run: next2 (cf37899: next with glibc's sincosf tables in constant memory and a
# band's rows read from the spans in local memory) against keep (368413f) and next (64f5d8c); the
# SASS of the patch kernel and of tiled_tf32 (the saved PTX ends in a NUL, which ptxas refused).
# 1. SASS and resources; 2. descriptor stage, three rounds alternating; 3. next2's OpenCL SURF tests
# on the GPU and `bovw extract` against the CPU; 4. files to histograms with default flags: 24,000
# ~640-px JPEGs (next, next2, two rounds), 2,400 and 2,400 of 1600 x 1200 (before, next2, one round);
# 5. the decode-only rate of the same sets (the limit is the larger of it and the device's).
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
P=.device/prof; Q=.device/prof2; R=.device/prof3
chmod +x $P/*/* $Q/*/* $R/*/*
w=/tmp/prof3
mkdir -p $w/ptx
echo "== 1. SASS"
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx $R/next2/bovw_surf_bench --backend opencl --batch 50 --runs 1 .device/set > /dev/null 2>&1
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx BOVW_DEVICE=NVIDIA $R/next2/bovw demo --backend opencl --variant tiled-tf32 > /dev/null 2>&1
CUDA=/usr/local/cuda
for f in $w/ptx/surf_descriptor*.bin $w/ptx/tiled_tf32*.bin; do
  name=$(basename "$f" .bin)
  tr -d '\000' < "$f" > $w/$name.ptx
  if $CUDA/bin/ptxas -arch=sm_90 -v $w/$name.ptx -o $w/$name.cubin > $w/$name.ptxas.txt 2>&1; then
    echo "-- $name: $(cat $f.options)"; grep -E "Compiling entry|Used|spill" $w/$name.ptxas.txt | sed 's/ptxas info    : //'
    $CUDA/bin/cuobjdump -sass $w/$name.cubin > $w/$name.sass 2>&1; cp $w/$name.sass $w/$name.ptx "${OUT:-/tmp}/"
  else
    echo "-- $name: ptxas failed"; head -5 $w/$name.ptxas.txt
  fi
done
echo "== 2. descriptor stage"
for r in 1 2 3; do
  for b in $P/keep $Q/next $R/next2 $R/next2_nosamples; do
    echo -n "$(basename $b) run $r: "; $b/bovw_surf_bench --backend opencl --batch 50 --runs 7 .device/set 2>&1 | grep "^batches"
  done
done
echo "== 3. exactness"
echo -n "next2 tests: "
BOVW_SURF_TEST_DATA=$PWD/tests/data/surf BOVW_OPENCV_DOC_DATA=$PWD/.device/images BOVW_DEVICE=NVIDIA \
  timeout 120 $R/next2/bovw_opencl_surf_tests --gtest_brief=1 2>&1 | tail -1
$R/next2/bovw extract .device/set -o $w/x_next2 --format npy > /dev/null 2>&1 || echo "extract next2 failed"
$R/next2/bovw extract .device/set -o $w/x_cpu --format npy --surf-backend builtin > /dev/null 2>&1 || echo "extract cpu failed"
diff -rq $w/x_cpu $w/x_next2 && echo "extract: next2 and the CPU identical ($(ls $w/x_next2 | wc -l) files)"
echo "== 4. files to histograms, default flags"
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
$R/next2/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$R/next2/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
histograms() {  # SET ROUND BUILDS...
  local set=$1 round=$2 n b s e; shift 2
  n=$(ls $w/$set/*.jpg | wc -l)
  for b in "$@"; do
    s=$(date +%s%N); $b/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --output $w/h_${set}_$(basename $b).npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "$set ($n images), $(basename $b) run $round: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s"
  done
}
for r in 1 2; do histograms many $r $Q/next $R/next2; done
cmp $w/h_many_next.npy $w/h_many_next2.npy && echo "many: histograms identical"
echo "next2 --profile:"; $R/next2/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
for set in small large; do
  histograms $set 1 $P/before $R/next2
  cmp $w/h_${set}_before.npy $w/h_${set}_next2.npy && echo "$set: histograms identical"
  echo "$set next2 --profile:"; $R/next2/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
done
echo "== 5. decode-only (the route's workers into its pinned staging, no device work), 24,000 and the large set"
$R/next2/bovw_decode_bench --rounds 3 $w/many 2>&1 | tail -4
$R/next2/bovw_decode_bench --rounds 3 $w/large 2>&1 | tail -4
