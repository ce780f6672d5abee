#!/usr/bin/env bash
# Not on main: the change is recheck_filter.patch beside this script (never timed: the session's
# device time ran out at 06:18 on 2026-12-07). To run: git apply recheck_filter.patch, build
# bovw_bench_cli and bovw_core_tests, strip them into .device/bin/bovw-bench-filter and
# bovw_core_tests, and a build without the patch into .device/bin/bovw-bench-before.
# Issue 24: the exact re-check sums golden distances only for the words whose FP32 e (FMA, one
# operation a term) is within the FP32 certificate's margin of the row's smallest (kernels/tiled.cl,
# recheck_flagged). bovw-bench-before: the kernels of main before it (663499d's); bovw-bench-filter:
# with it. Diff against OpenMP first, then the cases alternating, two rounds, PyTorch FP16 in
# the same run, and the golden suites (bovw_core_tests with the change).
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== the diff against OpenMP, D = 128"
timeout 60 $B/bovw-bench-filter --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench-filter; do
    echo "== $bin, round $round"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== the diff against OpenMP, the other shapes"
timeout 60 $B/bovw-bench-filter --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32,tiled --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-filter --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 0 --repetitions 1 2>&1 | tail -2
echo "== NVIDIA's build log of recheck_flagged (the FP32 tiled program, D = 128)"
for bin in bovw-bench-before bovw-bench-filter; do
  mkdir -p $OUT/log_$bin
  BOVW_DEVICE=NVIDIA BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$OUT/log_$bin $B/$bin --sizes 65536x1024 --dimension 128 \
    --variants tiled --build-options -cl-nv-verbose --warmup 0 --repetitions 1 2>&1 | grep -E "^tiled"
  echo "-- $bin"; grep -h -A3 -i "recheck_flagged" $OUT/log_$bin/tiled-*.log 2>/dev/null | grep -i -E "function|registers|spill|stack|smem" | head -6
done
echo "== PyTorch"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -2
echo "== the golden suites"
timeout 150 $B/bovw_core_tests --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*:TiledRecheck*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
