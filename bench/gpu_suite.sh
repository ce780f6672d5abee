#!/usr/bin/env bash
# The GPU measurements of docs/PERFORMANCE.md, in one run on the GPU machine (see docs/PERFORMANCE.md
# "How to reproduce"). Expects, in the project root there: build-gpu/ (built here with
# -DBOVW_WITH_OPENCV=OFF) and .device/ (opencl-env.sh and libs.tar.xz from bundle-libs.sh).
# Usage: bench/gpu_suite.sh OUTDIR
set -uo pipefail
out=${1:?usage: gpu_suite.sh OUTDIR}
mkdir -p "$out"
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$out/gpu.txt"
./build-gpu/bovw devices | tee "$out/devices.txt"
BOVW_DEVICE=gpu ./build-gpu/bovw bench --json "$out/bench_gpu.json" 2>&1 | tee "$out/bench_gpu.txt"
PYTHONUNBUFFERED=1 python3 bench/pytorch_peer.py --json "$out/pytorch.json" 2>&1 | tee "$out/pytorch.txt"
if [ -x build-gpu/tests/bovw_core_tests ]; then
  BOVW_DEVICE=gpu ./build-gpu/tests/bovw_core_tests --gtest_brief=1 2>&1 | tail -40 | tee "$out/tests_gpu.txt"
fi
