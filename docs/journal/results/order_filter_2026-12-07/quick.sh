#!/usr/bin/env bash
# Not on main: the kernel change is order_filter.patch (reverted at 04:05 when the session's device
# time ran out before any run). To run: git apply order_filter.patch, build bovw_bench_cli (and
# bovw_core_tests), strip them into .device/bin/bovw-bench and bovw_core_tests, and a build
# without the patch into .device/bin/bovw-bench-before.
# run.sh cut to the question, for the last 300 s of the session's device time: is the new epilogue
# exact (100,003 x 999 against OpenMP at D = 64 and 128) and faster at 1M x 1,024 x 128 (two rounds
# alternating with the kernels before), beside PyTorch FP16 in the same run. Timing only otherwise.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
for d in 64 128; do
  timeout 40 $B/bovw-bench --sizes 100003x999 --dimension $d --variants openmp,tiled-fp16 --warmup 0 --repetitions 1 2>&1 | tail -1
done
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench; do
    echo "$bin: $(timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E '^tiled')"
  done
done
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 --repetitions 7 2>&1 | tail -2
