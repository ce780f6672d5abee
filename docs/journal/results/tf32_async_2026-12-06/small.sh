#!/usr/bin/env bash
# Issue 24: the kernel before and the new default at the row counts of the files-to-histograms
# pipeline's device batches (K = 1,000, D = 64), alternating in two rounds.
# Usage (GPU machine, project root, .device carried): small.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for round in 1 2; do
  for b in bovw-bench-before bovw-bench; do
    echo "== $b, round $round"
    .device/bin/$b --sizes 12000x1000,25000x1000,50000x1000,100000x1000,200000x1000 --variants tiled-tf32 \
      --warmup 3 --repetitions 11 2>&1 | tail -5
  done
done
