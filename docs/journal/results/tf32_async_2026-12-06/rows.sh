#!/usr/bin/env bash
# Issue 24: the golden distances that the kernel sums itself read from a word-major copy of the words
# (bovw-bench) against the transposed copy (bovw-bench-before: 0a90774), the default shape; the new
# one against OpenMP first, then two rounds alternating.
# Usage (GPU machine, project root, .device carried): rows.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
.device/bin/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -4
.device/bin/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
for round in 1 2; do
  for b in bovw-bench-before bovw-bench; do
    echo "== $b, round $round"
    .device/bin/$b --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -3
    .device/bin/$b --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
