#!/usr/bin/env bash
# Issue 24: the committed tiled-fp16 (cvt.rn.f16.f32 prologue) against the OpenMP path: diff at the
# issue's D = 64 case, an odd case near it, and an odd D (scalar loads) with K past 4,096.
# Usage (GPU machine, project root, .device carried): exact.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 150 $B/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
timeout 100 $B/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 2>&1 | tail -2
