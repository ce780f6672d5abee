#!/usr/bin/env bash
# Not on main: the kernel change is order_filter.patch (reverted at 04:05 when the session's device
# time ran out before any run). To run: git apply order_filter.patch, build bovw_bench_cli (and
# bovw_core_tests), strip them into .device/bin/bovw-bench and bovw_core_tests, and a build
# without the patch into .device/bin/bovw-bench-before.
# Issue 24: the rows within the certificate's margin (15% at D = 128 on uniform data) ordered first by
# their candidates' distances summed in any order, four work-items a distance with all loads at once;
# golden sums (one work-item each, D dependent additions) only for the candidates those cannot tell
# apart (kernels/tiled_tensor.cl, BOVW_ORDER_RATIO). bovw-bench-before: the kernels before (663499d's;
# the binary of 01:19). In order of need: the diff against OpenMP; the cases alternating
# with before, two rounds (D = 64 and 128 at 1M x 1,024); PyTorch's peers in the same run; the golden suites on the GPU.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== the diff against OpenMP"
timeout 100 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
timeout 100 $B/bovw-bench --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32 --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 0 --repetitions 1 2>&1 | tail -2
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench; do
    echo "== $bin, round $round"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -4
echo "== the golden suites"
timeout 100 $B/bovw_core_tests --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
