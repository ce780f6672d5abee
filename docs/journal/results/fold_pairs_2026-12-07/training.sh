#!/usr/bin/env bash
# Issue 24, 2026-12-07 10:46, written before the run: training at K = 65,536 (4,000,000 x 64 uniform
# floats, flat k-means, 3 Lloyd iterations) on `tiled` and on tiled-fp16 with the fold in pairs, in
# one lease, as on 2026-12-06 (tf32_fp16_2026-12-06/sweep.sh). Expected: tiled-fp16's assignment
# 0.275-0.280 -> 0.24-0.26 s an iteration, `tiled` unchanged (0.885), k-means++ seeding 73-74 s on
# both, the vocabularies identical to each other and to 2026-12-06's (md5 ad41edd31fc3).
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
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
