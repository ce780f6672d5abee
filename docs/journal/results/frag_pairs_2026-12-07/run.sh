#!/usr/bin/env bash
# Issue 24, 2026-12-07 10:24, written before the run (journal: "Two k-steps a fragment load").
# The pairs kernel (10761ed, bovw-bench-pair) against two k-steps a 16-byte fragment load
# (bovw-bench-ldpair), alternating, two rounds, PyTorch FP16 at D = 128 first and last; then the
# golden suites of every tiled variant on the GPU with the new kernels.
# Expected: D = 128 1.065 -> 1.04-1.06 ms, D = 64 0.723 -> 0.71-0.72, K = 65,536 level or faster.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
pytorch() {
  timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
    --repetitions 7 2>&1 | tail -1
}
echo "== PyTorch FP16, D = 128, first"; pytorch
echo "== the diff against OpenMP (ldpair), D = 128, 64, and odd 65,537 x 4,097 x 125"
timeout 90 $B/bovw-bench-ldpair --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-ldpair --sizes 1048576x1024 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
timeout 90 $B/bovw-bench-ldpair --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2; do
  for bin in bovw-bench-pair bovw-bench-ldpair; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 1048576x1024,1048576x4096 --variants tiled-fp16,tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch FP16, D = 128, last"; pytorch
echo "== the golden suites (ldpair)"
timeout 240 $B/bovw_core_tests_ldpair --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:*tiled*:Tf32*:TensorCertificate*:*Recheck*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|SKIPPED|Failure" $OUT/tests.txt | head -8
