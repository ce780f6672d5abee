#!/usr/bin/env bash
# Issue 24: tiled-tf32's main loop under Nsight Compute, through bench/profiling/tf32_under_cuda (its
# %envreg0 now set to 0: the first attempt, 2026-12-06 02:26, stopped on an illegal memory access).
# 1,048,576 x 1,024 x 64 with the stalls per SASS instruction (NCU_MORE=1), then 180,000 x 65,536.
# Usage (GPU machine, project root, .device carried): run.sh OUT
set -uo pipefail
out=${1:-$OUT}
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== 1,048,576 x 1,024"
NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench "$out/k1024" 1048576 1024
echo "== 180,000 x 65,536"
bench/profiling/tf32_ncu.sh .device/bin/bovw-bench "$out/k65536" 180000 65536
rm -f "$out"/*/kernel.cubin "$out"/*/tf32_under_cuda
xz -9 "$out"/*/kernel.sass "$out"/*/kernel.ptx "$out"/k1024/ncu_sass.csv 2>/dev/null
ls -la "$out"/*
