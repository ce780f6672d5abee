#!/usr/bin/env bash
# On the GPU machine: flat k-means at K = 65,536 on 4,000,000 x 64 (uniform random, seed 1), the Lloyd
# iterations on tiled and on tiled-tf32 in one run: time per iteration and the vocabularies compared.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA
B=.device/bin
nvidia-smi --query-gpu=name --format=csv,noheader
python3 -c "
import numpy as np
np.save('/tmp/x4m.npy', np.random.default_rng(1).random((4000000, 64), dtype=np.float32))"
for v in tiled tiled-tf32; do
  start=$(date +%s%N)
  $B/bovw train --descriptors /tmp/x4m.npy --words ${1:-65536} --iterations ${2:-3} --tolerance -1 --seed 1 \
    --backend opencl --variant $v --verbose --output /tmp/v_$v.npy > /tmp/train_$v.log 2>&1
  end=$(date +%s%N)
  echo "== $v: exit $?, wall $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f", (b - a) / 1e9}') s, md5 $(md5sum < /tmp/v_$v.npy | cut -c1-12)"
  grep -iE "seeding|iteration|k-means on" /tmp/train_$v.log | tail -6
  cp /tmp/train_$v.log $OUT/
done
cmp /tmp/v_tiled.npy /tmp/v_tiled-tf32.npy && echo "vocabularies identical"
