#!/usr/bin/env bash
# Issue 24, 2026-12-07 08:17, written before the run. The re-check's walk (0.042 of its 0.056 ms at
# D = 128) grew with the memory reads it issues, not with the bytes (recheck_shape_2026-12-07). Each
# work-item summed words j, j + 256, j + 512, j + 768 with four 4-byte loads a feature; now it sums
# four neighbouring words read with one 16-byte load (the same bytes, coalesced into 512 bytes a
# warp). Per 4 features a warp issued 16 global and 4 local reads; now 4 and 4.
# Binaries (.device/bin): bovw-bench-before (main at 87f5808's kernels), bovw-bench-vec4, and
# bovw_core_tests_vec4 (the golden suites with it).
# Expected: the re-check at D = 128 0.056 -> 0.035-0.045 ms (1.10 -> 1.08-1.09 in all) if issuing the
# loads binds; `tiled`'s re-check (5,426 rows) 0.133 -> 0.08-0.11; level if not.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== PyTorch, first"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the diff against OpenMP, D = 128, vec4"
timeout 60 $B/bovw-bench-vec4 --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled-tf32,tiled --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2 3; do
  for bin in bovw-bench-before bovw-bench-vec4; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16,tiled --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch, last"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
echo "== the diff against OpenMP, the other shapes, vec4"
timeout 60 $B/bovw-bench-vec4 --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32,tiled --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-vec4 --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16,tiled --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
echo "== the golden suites (vec4)"
timeout 150 $B/bovw_core_tests_vec4 --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*:*Recheck*:*Variant*tiled*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
