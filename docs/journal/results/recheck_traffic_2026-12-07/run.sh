#!/usr/bin/env bash
# Not on main (written 2026-12-07 06:40, when the session's device time had run out). Issue 24: is the
# exact re-check bound by the words it reads from L2? Each group of 4 flagged rows reads all of
# words_t (K x D floats: 512 KB at K = 1,024, D = 128), so 1,971 rows read 252 MB, about 50 us at
# 5 TB/s: the re-check's measured 0.049 ms past its launch. More rows a group read less; 8 and 16
# rows with groups of 256 (2026-12-06) left too few groups for the GPU, so the words are also split
# into ranges (groups of 64: 4 ranges of 256 words at K = 1,024, joined by atom_min as at large K).
# Binaries (.device/bin): bovw-bench-before (main's: 4 rows, groups of 256), bovw-bench-r16g64
# (rows16_group64.patch: 16 rows, groups of 64), -r16g128, -r8g128 (the same two constants,
# src/opencl/exact_recheck.hpp), bovw-bench-filter (../recheck_filter_2026-12-07/recheck_filter.patch);
# bovw_core_tests_r16g64 (the golden suites with rows16_group64.patch). On PoCL (the 2-core VM, every
# row of 4,096 x 1,024 x 128 sent to the re-check): 69 ms against 136 before.
# Expected on the H100: the re-check at D = 128 0.056 -> 0.02-0.03 ms if the L2 traffic binds
# (1.112 -> 1.08-1.09 ms in all); K = 65,536 0.34 -> 0.15-0.25; if not, level or slower.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== the diff against OpenMP, D = 128"
timeout 60 $B/bovw-bench-r16g64 --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16,tiled --warmup 0 \
  --repetitions 1 2>&1 | grep -E "^(openmp|tiled)"
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench-r16g64 bovw-bench-r16g128 bovw-bench-r8g128 bovw-bench-filter; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16,tiled --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 40 $B/$bin --sizes 180000x65536 --variants tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -2
echo "== the diff against OpenMP, the other shapes"
timeout 60 $B/bovw-bench-r16g64 --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32,tiled --warmup 0 --repetitions 1 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 60 $B/bovw-bench-r16g64 --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16 --warmup 0 --repetitions 1 2>&1 | tail -2
echo "== the golden suites (16 rows, groups of 64)"
timeout 150 $B/bovw_core_tests_r16g64 --gtest_filter='*TiledExact*:*TiledFP16*:TensorCertificate*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests.txt | head -8
