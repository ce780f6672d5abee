#!/usr/bin/env bash
# Issue 24 experiment: tiled-tf32 with the next n-tiles' B fragments loaded a loop iteration ahead
# (prefetch.py) against cf37899's kernel (base); same lease, alternating. 1. registers (ptxas -v on
# each PTX); 2. exactness: diff against the OpenMP path at 1M x 1,024; 3. three rounds of each case.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
T=.device/tf32
chmod +x $T/*/*
export BOVW_DEVICE=NVIDIA
for b in base prefetch; do
  mkdir -p /tmp/ptx_$b
  BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=/tmp/ptx_$b $T/$b/bovw-bench --sizes 65536x1024 --variants tiled-tf32 --warmup 0 --repetitions 1 > /dev/null 2>&1
  for f in /tmp/ptx_$b/tiled_tf32*.bin; do
    tr -d '\000' < $f > /tmp/$b.ptx
    echo "-- $b: $(/usr/local/cuda/bin/ptxas -arch=sm_90 -v /tmp/$b.ptx -o /tmp/$b.cubin 2>&1 | grep -E 'Used|spill' | tr '\n' ' ')"
  done
done
for b in base prefetch; do
  echo "== $b, against OpenMP"; $T/$b/bovw-bench --sizes 1048576x1024 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
done
for r in 1 2 3; do
  for b in base prefetch; do
    echo "== $b round $r"
    $T/$b/bovw-bench --sizes 1048576x1024,1048576x4096 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -2
    $T/$b/bovw-bench --dimension 128 --sizes 1048576x1024 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
