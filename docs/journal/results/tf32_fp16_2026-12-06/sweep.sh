#!/usr/bin/env bash
# Issue 24: tiled-fp16's shapes (m-tiles, n-tiles, warps, -, staged n-tiles) at the issue's three
# cases, then flat k-means at K = 65,536 on 4,000,000 x 64: tiled against tiled-fp16 (time per Lloyd
# iteration, vocabularies compared byte for byte).
# Usage (GPU machine, project root, .device carried): sweep.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for round in 1 2; do
  for tiles in 2,2,4,1,8 2,4,4,1,8 4,2,4,1,8 1,2,8,1,8 2,2,8,1,8 2,2,4,1,4 2,2,4,1,16 2,4,4,1,16; do
    echo "== $tiles, round $round"
    timeout 30 $B/bovw-bench --sizes 1048576x1024,1048576x4096 --variants tiled-fp16 --tiles $tiles --warmup 2 \
      --repetitions 5 2>&1 | tail -2
    timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 --tiles $tiles --warmup 2 \
      --repetitions 5 2>&1 | tail -1
  done
done
echo "== training, K = 65,536"
python3 -c "
import numpy as np
np.save('/tmp/x4m.npy', np.random.default_rng(1).random((4000000, 64), dtype=np.float32))"
for v in tiled tiled-fp16; do
  start=$(date +%s%N)
  timeout 150 $B/bovw train --descriptors /tmp/x4m.npy --words 65536 --iterations 3 --tolerance -1 --seed 1 \
    --backend opencl --variant $v --verbose --output /tmp/v_$v.npy > /tmp/train_$v.log 2>&1
  rc=$? end=$(date +%s%N)
  echo "== $v: exit $rc, wall $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f", (b - a) / 1e9}') s, md5 $(md5sum < /tmp/v_$v.npy | cut -c1-12)"
  grep -iE "seeding|iteration|k-means on" /tmp/train_$v.log | tail -6
  cp /tmp/train_$v.log $OUT/
done
cmp /tmp/v_tiled.npy /tmp/v_tiled-fp16.npy && echo "vocabularies identical"
