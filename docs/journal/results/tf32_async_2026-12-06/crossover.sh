#!/usr/bin/env bash
# Issue 24: where staging the words through two buffers starts to pay. The first run's binary (no
# norms change: its depth 8 is really 8), depth 1 against 8, alternating, at K from 4,096 to 65,536.
# Usage (GPU machine, project root, .device carried): crossover.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export BOVW_DEVICE=NVIDIA
for round in 1 2; do
  for depth in 1 8; do
    echo "== depth $depth, round $round"
    .device/bin/bovw-bench --sizes 1048576x4096,1048576x8192,524288x16384,262144x32768,180000x65536 \
      --variants tiled-tf32 --tiles 2,2,4,1,$depth --warmup 1 --repetitions 5 2>&1 | tail -5
  done
done
