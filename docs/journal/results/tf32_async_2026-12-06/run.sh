#!/usr/bin/env bash
# Issue 24: the words staged in local memory through two buffers filled by cp.async (the next chunk
# on its way while the warps compute on this one), against the default (depth 1: the warps read
# global memory, the loop unchanged). One binary: --tiles' depth picks the staging. First each staged
# shape against the OpenMP path (diff), at odd sizes too; then alternating rounds at the issue's
# shapes; PyTorch's peers; the best staged shape's profile under Nsight Compute. bovw-bench-norms is
# the same kernel with the epilogue's norms added up in the prologue.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
export BOVW_DEVICE=NVIDIA
b=.device/bin/bovw-bench
for case in ":2,2,4,1,8" ":2,2,4,1,4" ":2,2,8,1,4" "-norms:2,2,4,1,1" "-norms:2,2,4,1,8"; do
  bin=$b${case%%:*} tiles=${case#*:}
  echo "== $bin $tiles against OpenMP"
  $bin --sizes 1048576x1024,100003x999 --variants openmp,tiled-tf32 --tiles $tiles --warmup 1 --repetitions 3 2>&1 | tail -4
  $bin --sizes 65537x4097 --dimension 125 --variants openmp,tiled-tf32 --tiles $tiles --warmup 1 --repetitions 3 2>&1 | tail -2
done
for round in 1 2; do
  for case in ":2,2,4,1,1" ":2,2,4,1,8" ":2,2,4,1,4" ":2,2,8,1,4" "-norms:2,2,4,1,1" "-norms:2,2,4,1,8"; do
    bin=$b${case%%:*} tiles=${case#*:}
    echo "== $bin $tiles, round $round"
    $bin --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --tiles $tiles --warmup 1 --repetitions 5 2>&1 | tail -3
    $bin --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 --tiles $tiles --warmup 1 --repetitions 5 2>&1 | tail -1
  done
done
echo "== PyTorch"
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 2>&1 | tail -12
python3 bench/pytorch_peer.py --sizes 1048576x1024 --dimension 128 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 2>&1 | tail -6
unset BOVW_DEVICE
echo "== profile, depth 8"
NCU_MORE=1 bench/profiling/tf32_ncu.sh $b $OUT/staged8 1048576 1024 --tiles 2,2,4,1,8
rm -f $OUT/*/tf32_under_cuda $OUT/*/kernel.cubin $OUT/*/report.ncu-rep
xz -9 $OUT/*/kernel.sass $OUT/*/ncu_sass.csv $OUT/*/kernel.ptx 2>/dev/null
