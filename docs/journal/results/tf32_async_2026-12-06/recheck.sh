#!/usr/bin/env bash
# Issues 24 (and `tiled`): the exact re-check with each flagged row's walk over K split into ranges
# over several work-groups, joined by a 64-bit atom_min (bovw-bench), against one group a row quad
# (bovw-bench-before: 0a90774). Against OpenMP first (K = 65,536 too), then two rounds alternating.
# Usage (GPU machine, project root, .device carried): recheck.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
b=.device/bin/bovw-bench
$b --sizes 1048576x1024,100003x999 --variants openmp,tiled,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -6
$b --sizes 65537x4097 --dimension 125 --variants openmp,tiled,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -3
$b --sizes 60000x65536 --variants openmp,tiled,tiled-tf32 --warmup 0 --repetitions 1 2>&1 | tail -3
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench; do
    echo "== $bin, round $round"
    .device/bin/$bin --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -3
    .device/bin/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -1
    .device/bin/$bin --sizes 1048576x4096,180000x65536 --variants tiled --warmup 1 --repetitions 5 2>&1 | tail -2
  done
done
