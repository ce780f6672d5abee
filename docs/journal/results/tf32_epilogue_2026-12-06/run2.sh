#!/usr/bin/env bash
# Issue 24, the second run: why did rowreg (the epilogue's row in registers) slow K = 65,536 and
# D = 128 down? Variants on the kernel before ("base", 07e68f1): the block's starting values in local
# memory alone ("startsonly"); with the norms' loads 16 bytes wide, no hand unrolling ("both"); and
# the first run's "starts" (rowreg + starting values); alternating in two rounds at the issue's
# shapes; the new ones against the OpenMP path.
# Usage (GPU machine, project root, .device carried): run2.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export BOVW_DEVICE=NVIDIA
for b in startsonly both; do
  echo "== $b against OpenMP"
  .device/bin/bovw-bench-$b --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
done
for round in 1 2; do
  for b in base startsonly both starts; do
    echo "== $b, round $round"
    .device/bin/bovw-bench-$b --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -3
    .device/bin/bovw-bench-$b --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -1
  done
done
