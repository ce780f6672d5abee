#!/usr/bin/env bash
# Issue 25: where the SURF patch kernel's time goes on the GPU (Nsight Compute does not profile
# OpenCL kernels), and the kernels after 368413f against a72d7f9's. Binaries in .device/prof/:
# before (a72d7f9), keep (368413f: the window samples without conversions and the band list, each
# row segment's offsets from its start again), and the variants of variants.py built on keep.
# 1. resources: ptxas -v on the PTX that NVIDIA's OpenCL made of surf_descriptor.cl and tiled_tf32.cl
#    (registers, spills, local memory per kernel);
# 2. bovw_surf_bench --batch 50 on the 150 JPEGs, three rounds alternating: the descriptor stage;
# 3. exactness: the OpenCL SURF tests of keep, group128 and unroll8 on the GPU; `bovw extract` of
#    keep and before against the CPU's builtin SURF;
# 4. files to histograms with default flags on 24,000 ~640-px JPEGs, before and keep, two rounds;
# 5. issue 22: the serving features stage (bovw_feature_batches_bench) with the scalar and SSE2 signatures.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
P=.device/prof
chmod +x $P/*/*
w=/tmp/prof
mkdir -p $w/ptx
echo "== 1. resources"
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx $P/keep/bovw_surf_bench --backend opencl --batch 50 --runs 1 .device/set > /dev/null 2>&1
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx BOVW_DEVICE=NVIDIA $P/keep/bovw-bench --sizes 65536x1024 \
  --variants tiled-tf32 --warmup 0 --repetitions 1 > /dev/null 2>&1
PTXAS=$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)
echo "ptxas: $PTXAS"
for f in $w/ptx/surf_descriptor*.bin $w/ptx/tiled_tf32*.bin; do
  echo "-- $(basename $f): $(cat $f.options)"
  "$PTXAS" -arch=sm_90 -v "$f" -o /dev/null 2>&1 | grep -E "Compiling entry|Used|spill" | sed 's/ptxas info    : //'
done
[ -n "${OUT:-}" ] && cp $w/ptx/surf_descriptor*.bin $w/ptx/tiled_tf32*.bin "$OUT/" 2>/dev/null
echo "== 2. descriptor stage"
for r in 1 2 3; do
  for b in before keep noload noarith nosamples noserial group128 unroll8; do
    echo -n "$b run $r: "; $P/$b/bovw_surf_bench --backend opencl --batch 50 --runs 7 .device/set 2>&1 | grep "^batches"
  done
done
echo "== 3. exactness"
for b in keep group128 unroll8; do
  echo -n "$b tests: "
  BOVW_SURF_TEST_DATA=$PWD/tests/data/surf BOVW_OPENCV_DOC_DATA=$PWD/.device/images BOVW_DEVICE=NVIDIA \
    timeout 120 $P/$b/bovw_opencl_surf_tests --gtest_brief=1 2>&1 | tail -1
done
for b in before keep; do
  $P/$b/bovw extract .device/set -o $w/x_$b --format npy > /dev/null 2>&1 || echo "extract $b failed"
done
$P/keep/bovw extract .device/set -o $w/x_cpu --format npy --surf-backend builtin > /dev/null 2>&1 || echo "extract cpu failed"
diff -rq $w/x_before $w/x_keep && diff -rq $w/x_cpu $w/x_keep && echo "extract: before, keep and the CPU identical ($(ls $w/x_keep | wc -l) files)"
echo "== 4. files to histograms, default flags"
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$P/keep/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
n=$(ls $w/many/*.jpg | wc -l)
for r in 1 2; do
  for b in before keep; do
    s=$(date +%s%N); $P/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "$n images, $b run $r: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s"
  done
done
cmp $w/h_before.npy $w/h_keep.npy && echo "histograms identical"
echo "keep --profile:"; $P/keep/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
echo "== 5. issue 22: the serving features stage, signatures scalar (sig_before, 368413f) and SSE2 (keep's bench, 4d06465)"
$P/keep/bovw train .device/set --words 16384 --seed 1 --quiet --output $w/v16k.bovw 2>&1 | tail -1
for b in sig_before keep; do
  echo "-- $b"; $P/$b/bovw_feature_batches_bench --vocabulary $w/v16k.bovw --images .device/set --threads 16 --batches 16 --seconds 4 --phases 2>&1
done
