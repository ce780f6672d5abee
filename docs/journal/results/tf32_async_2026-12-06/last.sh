#!/usr/bin/env bash
# Issue 24: the last code (399d6d9: the range keys filled only when a walk is split) against OpenMP
# where the re-check is split (K = 65,536) and where it is not (K = 1,024), and timed at K = 65,536.
# Usage (GPU machine, project root, .device carried): last.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
.device/bin/bovw-bench --sizes 60000x65536 --variants openmp,tiled,tiled-tf32 --warmup 0 --repetitions 1 2>&1 | tail -3
.device/bin/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -4
.device/bin/bovw-bench --sizes 180000x65536 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -2
