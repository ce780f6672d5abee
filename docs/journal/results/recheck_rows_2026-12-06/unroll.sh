#!/usr/bin/env bash
# Issue 24: why 8 and 16 flagged rows a re-check group were slower than 4 (run.sh). A guess: NVIDIA's
# compiler unrolls the walk's D steps fully (D is a build constant), so the code grows with the
# rows (some 56 instructions a step at 4 rows, 108 at 8: 14,000 at D = 128) and outgrows the
# instruction cache. bovw-bench-rRuU: R rows a group, `#pragma unroll U` on the walk over D; rR
# without the pragma. Each with the tensor pass's margin at 1.0625 times the bound too (timing only).
# Two rounds at D = 128, then D = 64, K = 4,096, `tiled` at D = 128 and K = 65,536.
# Usage (GPU machine, project root, .device carried): unroll.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
d128() { local bin=$1; shift; timeout 30 $B/bovw-bench-$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 \
  --warmup 2 --repetitions 7 "$@" 2>&1 | grep -E "^tiled"; }
for round in 1 2; do
  echo "== D = 128, round $round"
  for bin in r4 r4u1 r4u4 r8u1 r8u4 r16u4; do
    printf "%-6s %s\n" $bin "$(d128 $bin)"
  done
  for bin in r4 r4u4 r8u4; do
    printf "%-6s %s\n" "$bin m" "$(d128 $bin --build-options -DBOVW_MARGIN_SCALE=1.0625f)"
  done
done
echo "== D = 64 and K = 4,096; tiled at D = 128; K = 65,536"
for bin in r4 r4u4 r8u4 r16u4; do
  echo "-- $bin"
  timeout 40 $B/bovw-bench-$bin --sizes 1048576x1024,1048576x4096 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
  timeout 60 $B/bovw-bench-$bin --sizes 1048576x1024 --dimension 128 --variants tiled --warmup 1 --repetitions 5 2>&1 | grep -E "^tiled"
  timeout 60 $B/bovw-bench-$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 5 2>&1 | grep -E "^tiled"
done
