#!/usr/bin/env bash
# Issue 24: the near-tie rows' golden sums spread over the group and read 16 bytes at a time from the
# words' rows (bovw-bench: the commit that made them so) against the kernel before it
# (bovw-bench-before) and with the rows staged by cp.async as well (bovw-bench-staged: the same
# commit and ../tf32_fp16_2026-12-06/staged_rows.patch), alternating in two rounds. In order of need,
# since device time is short: the golden suites and the diff against OpenMP of the new build; the
# rounds; PyTorch's peers and the roofline's data; the harness under Nsight Compute at D = 128, now
# with FP16 fragments (it filled TF32 ones); the staged build's suites and diff; a few shapes.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
suites() {  # the golden suites with the tensor-core variants forced on, and the diff against OpenMP
  timeout 200 $B/$1 --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:Tf32*:TensorCertificate*' \
    --gtest_brief=1 > $OUT/tests_$1.txt 2>&1
  echo "$1 exit $?"; grep -E "FAILED|PASSED|Failure" $OUT/tests_$1.txt | head -8
  timeout 100 $B/$2 --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
  timeout 100 $B/$2 --sizes 1048576x1024,100003x999 --variants openmp,tiled-fp16,tiled-tf32 --warmup 1 --repetitions 3 2>&1 | grep -E "^(openmp|tiled)"
}
echo "== the new build"; suites bovw_core_tests bovw-bench
for round in 1 2; do
  for bin in bovw-bench-before bovw-bench bovw-bench-staged; do
    echo "== $bin, round $round"
    timeout 40 $B/$bin --sizes 1048576x1024,1048576x4096 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
    timeout 30 $B/$bin --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
  done
done
echo "== PyTorch and the roofline's data (the new build)"
mkdir -p $OUT/roofline
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt64.json 2>&1 | tail -7
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt128.json 2>&1 | tail -4
timeout 60 $B/bovw-bench --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32,tiled-fp16 --warmup 2 --repetitions 5 \
  --json $OUT/roofline/bench_d64.json 2>&1 | grep -E "^tiled|Measured"
timeout 40 $B/bovw-bench --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32,tiled-fp16 --warmup 1 --repetitions 5 \
  --json $OUT/roofline/bench_d128.json 2>&1 | grep -E "^tiled"
echo "== the harness under ncu, D = 128"
VARIANT=tiled-fp16 timeout 150 bench/profiling/tf32_ncu.sh $B/bovw-bench $OUT/ncu_d128 1048576 1024 --dimension 128
rm -rf $OUT/ncu_d128/ptx $OUT/ncu_d128/*.cubin $OUT/ncu_d128/tf32_under_cuda $OUT/ncu_d128/kernel.ptx $OUT/ncu_d128/report.ncu-rep
xz $OUT/ncu_d128/kernel.sass 2>/dev/null
echo "== the staged build"; suites bovw_core_tests-staged bovw-bench-staged
echo "== shapes at D = 128 (m-tiles, n-tiles, warps, -, staged n-tiles), the new build"
for tiles in 2,2,4,1,8 2,4,8,1,8 1,4,8,1,8; do
  echo "$tiles: $(timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --tiles $tiles \
    --warmup 2 --repetitions 5 2>&1 | tail -1)"
done
