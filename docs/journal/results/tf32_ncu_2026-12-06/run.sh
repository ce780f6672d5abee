#!/usr/bin/env bash
# Issue 24: tiled-tf32 under Nsight Compute (bench/profiling/tf32_ncu.sh), 1M x 1,024 x 64: the
# default shape with the per-instruction stalls, the words staged in local memory (16 n-tiles), and
# top2.py's kernel (two best scores a lane instead of three); then base against top2 alternating,
# with top2's words compared against the OpenMP path.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
ncu --version | tail -1
chmod +x .device/bin/*
echo "== default shape"
NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench $OUT/default 1048576 1024
echo "== words staged in local memory"
bench/profiling/tf32_ncu.sh .device/bin/bovw-bench $OUT/staged 1048576 1024 --tiles 2,2,4,1,16
echo "== top2"
bench/profiling/tf32_ncu.sh .device/bin/bovw-bench-top2 $OUT/top2 1048576 1024
rm -f $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin $OUT/*/report.ncu-rep
xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv $OUT/*/kernel.ptx 2>/dev/null
export BOVW_DEVICE=NVIDIA
echo "== top2 against OpenMP"
.device/bin/bovw-bench-top2 --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
for r in 1 2; do
  for b in bovw-bench bovw-bench-top2; do
    echo "== $b round $r"
    .device/bin/$b --sizes 1048576x1024,1048576x4096 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -2
  done
done
