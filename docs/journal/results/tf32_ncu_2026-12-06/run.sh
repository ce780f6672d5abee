#!/usr/bin/env bash
# Issue 24, one lease: 1. tiled-tf32 under Nsight Compute (bench/profiling/tf32_ncu.sh) at 1M x
# 1,024 x 64, the default shape with per-instruction stalls, then the words staged in local memory;
# 2. the kernel before (base) and after (wide) the wider in-kernel check, then with the re-check's
# work-groups of 256 (r256), and top2.py's kernel (on base), each against the OpenMP path, then timed
# alternating in two rounds. SHORT=1 (little device time left): base and r256 first (r256 against
# OpenMP, then both in one round), then the default shape's profile.
set -uo pipefail
short=${SHORT:-0}
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
ncu --version | tail -1
chmod +x .device/bin/*
if [ $short = 1 ]; then
  export BOVW_DEVICE=NVIDIA
  echo "== r256 against OpenMP"
  .device/bin/bovw-bench-r256 --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
  for b in base r256; do
    echo "== $b"
    .device/bin/bovw-bench-$b --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -3
  done
  unset BOVW_DEVICE
  echo "== default shape"
  NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench-r256 $OUT/default 1048576 1024
  rm -f $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin $OUT/*/report.ncu-rep
  xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv $OUT/*/kernel.ptx 2>/dev/null
  exit 0
fi
echo "== default shape"
NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench-r256 $OUT/default 1048576 1024
echo "== words staged in local memory"
bench/profiling/tf32_ncu.sh .device/bin/bovw-bench-r256 $OUT/staged 1048576 1024 --tiles 2,2,4,1,16
rm -f $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin $OUT/*/report.ncu-rep
xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv $OUT/*/kernel.ptx 2>/dev/null
export BOVW_DEVICE=NVIDIA
kernels="base wide r256 top2"
for b in $kernels; do
  echo "== $b against OpenMP"
  bin=.device/bin/bovw-bench-$b
  $bin --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
done
for r in 1 2; do
  for b in $kernels; do
    echo "== $b round $r"
    bin=.device/bin/bovw-bench-$b
    $bin --sizes 1048576x1024,1048576x4096 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -2
    [ $b = top2 ] && continue
    [ $b = wide -o $b = r256 ] && $bin --sizes 1048576x1024 --variants tiled --warmup 2 --repetitions 7 2>&1 | tail -1
    $bin --dimension 128 --sizes 1048576x1024 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -1
    $bin --sizes 180000x65536 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -1
  done
done
