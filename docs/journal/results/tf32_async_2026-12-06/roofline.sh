#!/usr/bin/env bash
# Issue 24: the roofline picture's data for the committed tiled-tf32 (its default shape), with
# `tiled` and PyTorch's peers, as JSON (bench/roofline.py draws it).
# Usage (GPU machine, project root, .device carried): roofline.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA
b=.device/bin/bovw-bench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
$b --sizes 1048576x1024,1048576x4096 --variants tiled,tiled-tf32 --warmup 2 --repetitions 7 --json $OUT/bench_d64.json 2>&1 | tail -4
$b --dimension 128 --sizes 1048576x1024 --variants tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_d128.json 2>&1 | tail -2
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 --json $OUT/pt64.json 2>&1 | tail -7
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --warmup 2 --repetitions 7 --json $OUT/pt128.json 2>&1 | tail -4
