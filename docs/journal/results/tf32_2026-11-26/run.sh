#!/usr/bin/env bash
# Third run: tiled-tf32 with blocks of 1,024 words (8 index bits at any K), training at K = 65,536,
# and the start-up of a one-shot bovw search before and after the program cache.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 $B/bovw_core_tests --gtest_filter='*TiledExact*:*tiled_tf32*:Tf32*:*opencl_tiled*:TuningTable*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED" $OUT/tests.txt | tail -5
$B/bovw-bench --sizes 1048576x1024 --variants openmp,tiled,tiled-tf32 --json $OUT/bench_d64.json > $OUT/bench_d64.txt 2>&1; grep -E "^(openmp|tiled)" $OUT/bench_d64.txt
$B/bovw-bench --sizes 1048576x4096,180000x65536 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_k.json > $OUT/bench_k.txt 2>&1; grep -E "^tiled" $OUT/bench_k.txt
$B/bovw-bench --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_d128.json > $OUT/bench_d128.txt 2>&1; grep -E "^tiled" $OUT/bench_d128.txt
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16,bf16 --json $OUT/pytorch_d64.json 2>&1 | tail -14
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d128.json 2>&1 | tail -4
echo "== training"
bash .device/train_run.sh 65536 3 2>&1 | grep -E "==|iteration|seeding|identical"
