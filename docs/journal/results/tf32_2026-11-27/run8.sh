#!/usr/bin/env bash
# tiled-tf32: the unstaged path with yesterday's 64-bit fragment index, against yesterday's binary
# and the staged shapes, D = 64 and 128, one run.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA
B=.device/bin
nvidia-smi --query-gpu=name --format=csv,noheader
for d in 64 128; do
  sizes=1048576x1024,1048576x4096,180000x65536; [[ $d == 128 ]] && sizes=1048576x1024
  for t in 2,2,2,1,1 2,2,4,1,16 2,2,4,1,1; do
    $B/bovw-bench --dimension $d --sizes $sizes --variants tiled-tf32 --tiles $t --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled" | sed "s/^/D=$d tiles $t: /"
  done
  $B/bovw-bench-before --dimension $d --sizes $sizes --variants tiled-tf32 --warmup 2 --repetitions 7 2>&1 | grep -E "^tiled" | sed "s/^/D=$d before: /"
done
