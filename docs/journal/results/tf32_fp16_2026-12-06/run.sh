#!/usr/bin/env bash
# Issue 24: tiled-fp16 (the tensor-core search on FP16 operands, m16n8k16) against tiled-tf32 in one
# run: the golden suites on the GPU with both forced on, diff against the OpenMP path, the two
# alternating in two rounds at the shapes, the mma.sync peaks (TF32 and FP16), PyTorch's
# peers in the same run.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 240 $B/bovw_core_tests --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:Tf32*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -12
echo "== against OpenMP (diff)"
timeout 150 $B/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled-tf32,tiled-fp16 --warmup 2 \
  --repetitions 5 2>&1 | grep -E "^(openmp|tiled)|Measured"
timeout 100 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-tf32,tiled-fp16 --warmup 1 \
  --repetitions 5 2>&1 | tail -3
timeout 60 $B/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 1 \
  --repetitions 3 2>&1 | tail -2
for round in 1 2; do
  for v in tiled-tf32 tiled-fp16; do
    echo "== $v, round $round"
    timeout 60 $B/bovw-bench --sizes 1048576x1024,1048576x4096,1048576x8192,180000x65536 --variants $v \
      --warmup 2 --repetitions 7 2>&1 | tail -4
    timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants $v --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
echo "== PyTorch"
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -8
timeout 60 python3 bench/pytorch_peer.py --sizes 1048576x1024 --dimension 128 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -4
