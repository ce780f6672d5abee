#!/usr/bin/env bash
# Issue 24: tiled-fp16 at D = 128 with the rows staged (the committed kernel), against the same with
# at most 128 registers (-cl-nv-maxrregcount=128: 4 groups an SM where 152 registers allow 3), with
# that and 2 x 8 words a step, and with a margin 1.0625 times the bound instead of 1.25 (timing
# only), alternating in two rounds; the register cap at D = 64 and K = 4,096 and its diff against
# OpenMP; then PyTorch's peers and the roofline's data (the default). Few files under $OUT: a
# reply brings back 8 at most.
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
b=.device/bin/bovw-bench
d128() { timeout 30 $b --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --warmup 2 --repetitions 7 "$@" 2>&1 | grep -E "^tiled"; }
cap=-cl-nv-maxrregcount=128
for round in 1 2; do
  echo "== round $round"
  echo "default:       $(d128)"
  echo "cap:           $(d128 --build-options $cap)"
  echo "2,2,4,1,8 cap: $(d128 --tiles 2,2,4,1,8 --build-options $cap)"
  echo "margin 1.0625: $(d128 --build-options -DBOVW_MARGIN_SCALE=1.0625f)"
done
echo "== the cap at D = 64, and against OpenMP"
for opts in "" "--build-options $cap"; do
  timeout 40 $b --sizes 1048576x1024,1048576x4096 --variants tiled-fp16 --warmup 2 --repetitions 7 $opts 2>&1 | grep -E "^tiled"
done
timeout 100 $b --sizes 1048576x1024 --dimension 128 --variants openmp,tiled-fp16 --warmup 1 --repetitions 3 \
  --build-options $cap 2>&1 | grep -E "^(openmp|tiled)"
echo "== PyTorch and the roofline's data (the default)"
timeout 90 python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/pt64.json 2>&1 | tail -7
timeout 60 python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 \
  --repetitions 7 --json $OUT/pt128.json 2>&1 | tail -4
timeout 60 $b --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32,tiled-fp16 --warmup 2 --repetitions 5 \
  --json $OUT/bench_d64.json 2>&1 | grep -E "^tiled|Measured"
timeout 40 $b --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32,tiled-fp16 --warmup 1 --repetitions 5 \
  --json $OUT/bench_d128.json 2>&1 | grep -E "^tiled"
