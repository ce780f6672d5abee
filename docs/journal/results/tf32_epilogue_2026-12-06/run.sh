#!/usr/bin/env bash
# Issue 24, one lease: tiled-tf32 with the epilogue's row read once into registers (16-byte loads;
# D <= 64) for its norms and golden distances ("rowreg"), and with the block's starting values staged
# in local memory on top ("starts"), against the kernel before ("base", 07e68f1), alternating in two
# rounds at D = 64 (1M x 1,024, 1M x 4,096, 180,000 x 65,536) and at D = 128 (rowreg: the row stays
# in global memory there); each against the OpenMP path; then starts' profile at 1M x 1,024
# (bench/profiling/tf32_ncu.sh, per-instruction samples).
# Usage (GPU machine, project root, .device carried): run.sh OUT
set -uo pipefail
out=${1:-$OUT}
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export BOVW_DEVICE=NVIDIA
for b in rowreg starts; do
  echo "== $b against OpenMP"
  .device/bin/bovw-bench-$b --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
done
for round in 1 2; do
  for b in base rowreg starts; do
    echo "== $b, round $round, D = 64"
    .device/bin/bovw-bench-$b --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -3
    echo "== $b, round $round, D = 128"
    .device/bin/bovw-bench-$b --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -1
  done
done
unset BOVW_DEVICE
echo "== starts' profile"
NCU_MORE=1 bench/profiling/tf32_ncu.sh .device/bin/bovw-bench-starts "$out/starts" 1048576 1024
rm -f "$out"/*/kernel.cubin "$out"/*/tf32_under_cuda "$out"/*/report.ncu-rep
rm -rf "$out"/*/ptx
xz -9 "$out"/*/kernel.sass "$out"/*/kernel.ptx "$out"/*/ncu_sass.csv "$out"/*/ncu.txt 2>/dev/null
