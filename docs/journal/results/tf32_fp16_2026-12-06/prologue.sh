#!/usr/bin/env bash
# Issue 24: tiled-fp16 with its operands rounded by cvt.rn.f16.f32 (no branches) and loaded in
# pairs, against tiled-tf32, alternating in two rounds at the shapes; the GPU's golden
# suites for both first; then the roofline picture's data (tiled, tiled-tf32, tiled-fp16 and
# PyTorch's peers, as JSON: bench/roofline.py draws it).
# Usage (GPU machine, project root, .device carried): prologue.sh
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
timeout 100 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 1 \
  --repetitions 3 2>&1 | tail -2
for round in 1 2; do
  for v in tiled-tf32 tiled-fp16; do
    echo "== $v, round $round"
    timeout 60 $B/bovw-bench --sizes 1048576x1024,1048576x4096,180000x65536 --variants $v --warmup 2 --repetitions 7 2>&1 | tail -3
    timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants $v --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
echo "== roofline data"
b=$B/bovw-bench
mkdir -p $OUT/roofline
timeout 60 $b --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32,tiled-fp16 --warmup 2 --repetitions 7 \
  --json $OUT/roofline/bench_d64.json 2>&1 | grep -E "^tiled|Measured"
timeout 40 $b --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32,tiled-fp16 --warmup 1 --repetitions 5 \
  --json $OUT/roofline/bench_d128.json 2>&1 | grep -E "^tiled"
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt64.json 2>&1 | tail -7
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt128.json 2>&1 | tail -4
