#!/usr/bin/env bash
# The final tiled-tf32 default against tiled and PyTorch in one run, and the golden suites on the GPU.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
timeout 200 $B/bovw_core_tests --gtest_filter='*TiledExact*:*tiled_tf32*:Tf32*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "tests exit $?"; grep -E "FAILED|PASSED" $OUT/tests.txt | tail -4
$B/bovw-bench --sizes 1048576x1024 --variants openmp,tiled,tiled-tf32 --warmup 2 --repetitions 7 --json $OUT/bench_d64.json > $OUT/bench_d64.txt 2>&1; grep -E "^(openmp|tiled)|Measured" $OUT/bench_d64.txt
$B/bovw-bench --sizes 1048576x4096,180000x65536 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_k.json > $OUT/bench_k.txt 2>&1; grep -E "^tiled" $OUT/bench_k.txt
$B/bovw-bench --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_d128.json > $OUT/bench_d128.txt 2>&1; grep -E "^tiled" $OUT/bench_d128.txt
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d64.json 2>&1 | tail -7
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d128.json 2>&1 | tail -4
