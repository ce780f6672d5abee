#!/usr/bin/env bash
# Issue 24: the committed tiled-tf32 (its default shape) under Nsight Compute at 1M x 1,024 (with the
# per-instruction stalls) and at 180,000 x 65,536, for the next step.
# Usage (GPU machine, project root, .device carried): profile.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench $OUT/k1024 1048576 1024
bench/profiling/tf32_ncu.sh .device/bin/bovw-bench $OUT/k65536 180000 65536
rm -rf $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin $OUT/*/report.ncu-rep $OUT/*/ptx
xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv $OUT/*/kernel.ptx 2>/dev/null
