#!/usr/bin/env bash
# Issue 24: tiled-tf32 under Nsight Compute (bench/profiling/tf32_ncu.sh), 1M x 1,024 x 64: the
# default shape with the per-instruction stalls, then the words staged in local memory (16 n-tiles).
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
rm -f $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin
xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv 2>/dev/null
ls -la $OUT/*
