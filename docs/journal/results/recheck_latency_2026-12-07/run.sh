#!/usr/bin/env bash
# Issue 24, 2026-12-07 08:26, written before the run. The re-check's walk is bound neither by the
# words' bytes nor by its read count (recheck_shape, recheck_vec4), which leaves latency: 126 k
# work-items (about 30 warps an SM) with 16 sums each. Here more work-items with fewer sums, and two
# small fixed costs:
#   bovw-bench-r4w1: 4 rows, 1 word a work-item (recheck_words.patch with kSumsInFlight = 4): at
#     K = 1,024 the walk splits into 4 ranges, 505 k work-items of 4 sums;
#   bovw-bench-r4w2: 4 rows, 2 words (kSumsInFlight = 8): 2 ranges, 252 k work-items of 8 sums;
#   bovw-bench-cap4: main with the re-check's grid at 4 groups a compute unit instead of 32 (at
#     1,971 rows 493 groups have work; the other 3,700 start, read the count and leave);
#   bovw-bench-epi16: main with the first pass's golden sums unrolled 16 float4 steps instead of 8
#     (their loads further ahead of the sums).
# Expected: r4w1 0.056 -> 0.035-0.045 ms if the walk waits on latency with too few warps, slower if
# a work-item's sums in flight are what hide it; cap4 0.056 -> 0.050-0.054; epi16 the first pass
# 0.005-0.01 ms shorter or level. None of these alone makes D = 128 2.2x against PyTorch's faster
# runs (1.056 ms at 2.32).
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== PyTorch, first"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the diff against OpenMP, D = 128"
for bin in bovw-bench-r4w1 bovw-bench-epi16; do
  timeout 60 $B/$bin --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled --warmup 0 \
    --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
done
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench-r4w1 bovw-bench-r4w2 bovw-bench-cap4 bovw-bench-epi16; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16,tiled --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch, last"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the golden suites (r4w1)"
timeout 150 $B/bovw_core_tests_r4w1 --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*:*Recheck*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
