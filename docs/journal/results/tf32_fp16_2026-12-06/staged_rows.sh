#!/usr/bin/env bash
# Issue 24: the group's rows staged through the chunk buffers by cp.async in the prologue (after)
# against the committed kernel (before: bovw-bench-before, each lane loading its own values), both
# operand formats, alternating in two rounds; the golden suites and diff against OpenMP first.
# Usage (GPU machine, project root, .device carried): staged_rows.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
timeout 200 $B/bovw_core_tests --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:Tf32*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -12
timeout 100 $B/bovw-bench --sizes 1048576x1024,100003x999 --variants openmp,tiled-fp16,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
timeout 100 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 2>&1 | tail -2
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024,1048576x4096 --variants tiled-fp16,tiled-tf32 --warmup 2 --repetitions 7 2>&1 | tail -4
    timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | tail -1
  done
done
