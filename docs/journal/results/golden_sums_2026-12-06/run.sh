#!/usr/bin/env bash
# Issue 24: the near-tie rows' golden sums spread over the group and read 16 bytes at a time from the
# words' rows (bovw-bench: the commit that made them so) against the kernel before it
# (bovw-bench-before) and with the rows staged by cp.async as well (bovw-bench-staged: the same
# commit and ../tf32_fp16_2026-12-06/staged_rows.patch), alternating in two rounds. First the golden
# suites of both new builds and their diff against OpenMP; last PyTorch's peers, the roofline's data
# and the harness under Nsight Compute at D = 128, now with FP16 fragments (it filled TF32 ones).
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
for t in bovw_core_tests bovw_core_tests-staged; do
  timeout 200 $B/$t --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:Tf32*:TensorCertificate*' \
    --gtest_brief=1 > $OUT/tests_$t.txt 2>&1
  echo "$t exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests_$t.txt | head -8
done
for bin in bovw-bench bovw-bench-staged; do
  echo "== $bin against OpenMP"
  timeout 100 $B/$bin --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
  timeout 100 $B/$bin --sizes 1048576x1024,100003x999 --variants openmp,tiled-fp16,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
done
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench bovw-bench-staged; do
    echo "== $bin, round $round"
    timeout 60 $B/$bin --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16,tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
  done
done
echo "== shapes at D = 128 (m-tiles, n-tiles, warps, -, staged n-tiles), the new kernel"
for tiles in 2,2,4,1,8 2,4,8,1,8 1,4,8,1,8; do
  echo "$tiles: $(timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --tiles $tiles \
    --warmup 2 --repetitions 5 2>&1 | tail -1)"
done
echo "== roofline data"
mkdir -p $OUT/roofline
for bin in bovw-bench bovw-bench-staged; do
  timeout 60 $B/$bin --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32,tiled-fp16 --warmup 2 --repetitions 7 \
    --json $OUT/roofline/${bin}_d64.json 2>&1 | grep -E "^tiled|Measured"
  timeout 40 $B/$bin --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32,tiled-fp16 --warmup 1 --repetitions 5 \
    --json $OUT/roofline/${bin}_d128.json 2>&1 | grep -E "^tiled"
done
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt64.json 2>&1 | tail -7
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt128.json 2>&1 | tail -4
echo "== the harness under ncu, D = 128"
VARIANT=tiled-fp16 timeout 150 bench/profiling/tf32_ncu.sh $B/bovw-bench $OUT/ncu_d128 1048576 1024 --dimension 128
rm -rf $OUT/ncu_d128/ptx $OUT/ncu_d128/*.cubin $OUT/ncu_d128/tf32_under_cuda $OUT/ncu_d128/kernel.ptx
rm -f $OUT/ncu_d128/report.ncu-rep; xz $OUT/ncu_d128/kernel.sass 2>/dev/null
