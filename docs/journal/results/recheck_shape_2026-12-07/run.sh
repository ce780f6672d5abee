#!/usr/bin/env bash
# Issue 24, 2026-12-07 07:50, written before the run. Is the exact re-check bound by the words it
# reads from L2 when the grid keeps its parallelism? The 16-row try of this morning cut the grid to a
# quarter (32 k work-items) and lost. Here each work-item keeps 16 sums in flight whatever the rows:
# 4 rows x 4 words (main's shape), 8 x 2, 16 x 1; groups of 256, so at K = 1,024 the walk splits into
# 1, 2 or 4 ranges and the grid stays at about 126 k work-items, while the words read fall to a half
# or a quarter. The ranges' keys are now filled once and set back by recheck_finish (a fill of the
# whole batch's keys each call: 8 MB at 1M rows).
# Binaries (.device/bin): bovw-bench-before (main), -r4w4 (the new kernel in main's shape: the
# control), -r16w1, -r8w2, -nowalk (r4w4 with the walk over D removed: wrong words, the pass's floor),
# bovw_core_tests_r16w1 (the golden suites with 16 rows).
# Expected: r4w4 = before within 1% (the re-check 0.055-0.056 ms at D = 128). nowalk: the floor,
# under 0.02 ms if the walk is the pass. r16w1: 0.056 -> 0.025-0.035 if L2 traffic binds at equal
# parallelism (total 1.113 -> 1.08-1.09 ms), level or slower if the issue rate or the wider reduction
# does. K = 65,536 (16 ranges for every shape): 0.34 -> 0.2-0.3 for r16w1.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== PyTorch, first"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the diff against OpenMP, D = 128, r16w1"
timeout 60 $B/bovw-bench-r16w1 --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench-r4w4 bovw-bench-nowalk bovw-bench-r16w1 bovw-bench-r8w2; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16,tiled --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch, last"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the diff against OpenMP, the other shapes, r16w1"
timeout 60 $B/bovw-bench-r16w1 --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32,tiled --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-r16w1 --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 0 --repetitions 1 2>&1 | tail -2
echo "== the golden suites (16 rows, a word each)"
timeout 150 $B/bovw_core_tests_r16w1 --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*:*Recheck*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
