#!/usr/bin/env bash
# Issue 24, the kernel as committed: the golden suites on the GPU with tiled-tf32 forced on; the
# kernel before (bovw-bench-before: 3c605b0's kernel, its default depth 1) against the new default
# (depth 8, norms from the prologue) and the new kernel unstaged, alternating in two rounds, with
# `tiled`, the OpenMP path (diff) and PyTorch's peers in the same run; flat k-means at K = 65,536 on
# 4,000,000 x 64, tiled against tiled-tf32 (time per Lloyd iteration, vocabularies compared).
# Usage (GPU machine, project root, .device carried): final.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 300 $B/bovw_core_tests --gtest_filter='*TiledExact*:*tiled_tf32*:Tf32*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED" $OUT/tests.txt | tail -4
echo "== new default against OpenMP and tiled"
$B/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled,tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^(openmp|tiled)|TFLOP|peak|Measured"
$B/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | tail -2
$B/bovw-bench --sizes 1048576x4096,180000x65536 --variants tiled --warmup 1 --repetitions 5 2>&1 | tail -2
$B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants openmp,tiled,tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -3
for round in 1 2; do
  for case in before: new: new:2,2,4,1,1; do
    bin=$B/bovw-bench; [ ${case%%:*} = before ] && bin=$B/bovw-bench-before
    tiles=${case#*:}; opt=(); [ -n "$tiles" ] && opt=(--tiles $tiles)
    echo "== $case, round $round"
    $bin --sizes 1048576x1024,1048576x4096,1048576x8192,180000x65536 --variants tiled-tf32 "${opt[@]}" --warmup 2 --repetitions 7 2>&1 | tail -4
    $bin --sizes 1048576x1024 --dimension 128 --variants tiled-tf32 "${opt[@]}" --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
echo "== PyTorch"
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 2>&1 | tail -8
python3 bench/pytorch_peer.py --sizes 1048576x1024 --dimension 128 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 2>&1 | tail -4
echo "== training, K = 65,536"
python3 -c "
import numpy as np
np.save('/tmp/x4m.npy', np.random.default_rng(1).random((4000000, 64), dtype=np.float32))"
for v in tiled tiled-tf32; do
  start=$(date +%s%N)
  $B/bovw train --descriptors /tmp/x4m.npy --words 65536 --iterations 3 --tolerance -1 --seed 1 \
    --backend opencl --variant $v --verbose --output /tmp/v_$v.npy > /tmp/train_$v.log 2>&1
  rc=$? end=$(date +%s%N)
  echo "== $v: exit $rc, wall $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f", (b - a) / 1e9}') s, md5 $(md5sum < /tmp/v_$v.npy | cut -c1-12)"
  grep -iE "seeding|iteration|k-means on" /tmp/train_$v.log | tail -6
  cp /tmp/train_$v.log $OUT/
done
cmp /tmp/v_tiled.npy /tmp/v_tiled-tf32.npy && echo "vocabularies identical"
