#!/usr/bin/env bash
# Issue 24, 2026-12-07 10:05, written before the run (journal: "The fold in pairs"). main's kernel
# (bovw-bench-before) against the fold in pairs (bovw-bench-pair: four min/max a score instead of
# five), alternating, two rounds, PyTorch FP16 first and last; then the golden suites on the GPU.
# Expected: D = 64 0.806 -> 0.70-0.76 ms, D = 128 1.105 -> 1.04-1.09, K = 65,536 8.08 -> 7.3-7.8;
# fully re-checked rows up by a handful.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
pytorch() {
  timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
    --repetitions 7 2>&1 | tail -1
}
echo "== PyTorch FP16, D = 128, first"; pytorch
echo "== the diff against OpenMP (pair)"
timeout 90 $B/bovw-bench-pair --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-pair --sizes 1048576x1024 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench-pair; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 1048576x1024,1048576x4096 --variants tiled-fp16,tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== pair, 2 n-tiles a step (2,2,4,1,8), D = 64 and 128"
timeout 40 $B/bovw-bench-pair --sizes 1048576x1024 --variants tiled-fp16 --tiles 2,2,4,1,8 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
timeout 40 $B/bovw-bench-pair --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --tiles 2,2,4,1,8 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
echo "== PyTorch FP16, D = 128, last"; pytorch
echo "== the golden suites (pair)"
timeout 200 $B/bovw_core_tests_pair --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*:*Recheck*:*Tensor*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
