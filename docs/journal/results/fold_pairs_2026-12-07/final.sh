#!/usr/bin/env bash
# Issue 24, 2026-12-07 10:26, written before the run: the fold in pairs (10761ed) as landed. The
# golden suites of every tiled variant on the GPU; the diff against OpenMP on the odd shapes; PyTorch
# FP32 / TF32 / FP16 and bovw's three tiled variants for the table and the roofline (with the
# device's ceilings); files to histograms against the kernels before (2bbe670: bovw-before), three
# rounds alternating, outputs compared.
# Expected: every test passes, diff 0; tiled-fp16 0.72 / 2.56 / 1.06 ms (D = 64 K = 1,024 / 4,096;
# D = 128); files to histograms the same within noise (the histogram stage is about 0.05 s of 3.7),
# the histograms identical.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
echo "== the golden suites"
timeout 240 $B/bovw_core_tests --gtest_filter='*TiledExact*:*TiledFP16*:*tiled_tf32*:*tiled_fp16*:*tiled*:Tf32*:TensorCertificate*:*Recheck*' \
  --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED|SKIPPED|Failure" $OUT/tests.txt | head -8
echo "== the diff against OpenMP"
timeout 100 $B/bovw-bench --sizes 100003x999 --variants openmp,tiled-fp16,tiled-tf32 --warmup 1 --repetitions 3 \
  2>&1 | grep -E "^(openmp|tiled)"
timeout 100 $B/bovw-bench --sizes 65537x4097 --dimension 125 --variants openmp,tiled-fp16,tiled-tf32 --warmup 1 --repetitions 3 \
  2>&1 | grep -E "^(openmp|tiled)"
echo "== PyTorch, bovw and the roofline's data"
mkdir -p $OUT/roofline
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt64.json 2>&1 | tail -7
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/roofline/pt128.json 2>&1 | tail -4
timeout 90 $B/bovw-bench --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32,tiled-fp16 --warmup 2 --repetitions 5 \
  --json $OUT/roofline/bench_d64.json 2>&1 | grep -E "^tiled|Measured|TFLOP|GB/s"
timeout 60 $B/bovw-bench --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32,tiled-fp16 --warmup 1 --repetitions 5 \
  --json $OUT/roofline/bench_d128.json 2>&1 | grep -E "^tiled"
timeout 60 $B/bovw-bench --sizes 180000x65536 --variants tiled-fp16,tiled-tf32 --warmup 1 --repetitions 5 2>&1 | grep -E "^tiled"
echo "== PyTorch FP16 at D = 128 once more, and bovw beside it"
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp16 --warmup 2 \
  --repetitions 7 2>&1 | tail -1
timeout 40 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled"
echo "== files to histograms: 24,000 ~640-px JPEGs, K = 1,000, default flags"
w=/tmp/e2e
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
n=$(ls $w/many/*.jpg | wc -l)
$B/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
ns() { date +%s%N; }
for bin in bovw-before bovw; do $B/$bin histogram --images .device/set --vocabulary $w/v.bovw --quiet --output $w/warm.npy > /dev/null 2>&1; done
for r in 1 2 3; do
  for bin in bovw-before bovw; do
    s=$(ns); $B/$bin histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$bin.npy > /dev/null 2>&1 || echo "$bin failed"; e=$(ns)
    echo "$bin, run $r: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s ($(( (e - s) / 1000000 )) ms)"
  done
done
cmp $w/h_bovw-before.npy $w/h_bovw.npy && echo "histograms identical ($n images)"
