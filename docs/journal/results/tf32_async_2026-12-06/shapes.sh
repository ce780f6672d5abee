#!/usr/bin/env bash
# Issue 24: shapes around the new default (4 warps of 2 x 16 rows, 2 x 8 words a step, 8 tiles
# staged): 5 warps (160 rows a group: a fifth less L2 traffic a row, 48 KB of local memory), 4 n-tiles
# a step, 3 m-tiles a warp; two rounds alternating.
# Usage (GPU machine, project root, .device carried): shapes.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
.device/bin/bovw-bench --sizes 100003x999 --variants openmp,tiled-tf32 --tiles 2,2,5,1,8 --warmup 1 --repetitions 3 2>&1 | tail -1
for round in 1 2; do
  for tiles in 2,2,4,1,8 2,2,5,1,8 2,4,4,1,8 3,2,4,1,8; do
    echo "== $tiles, round $round"
    .device/bin/bovw-bench --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --tiles $tiles --warmup 1 --repetitions 5 2>&1 | tail -3
  done
done
