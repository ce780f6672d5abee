#!/usr/bin/env bash
# k-means++ seeding with eight work-items a row, 2026-12-07 (fifth session, 12:20), written before the
# run: training at K = 65,536 (4,000,000 x 64 uniform floats, 3 Lloyd iterations, tiled-fp16) with the
# binaries before (bovw-before: one work-item a row) and after (bovw), one round each in one lease.
# Expected: seeding 74-75 s -> 36-40 s (the K = 16,384 run of the same lease went 19.0-19.8 -> 9.4-9.6 s,
# 2.0x; seeding scales with K), the Lloyd iterations unchanged (0.24-0.28 s of assignment), the
# vocabularies identical to each other and to 2026-12-06's (md5 ad41edd31fc3).
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
python3 -c "
import numpy as np
np.save('/tmp/x4m.npy', np.random.default_rng(1).random((4000000, 64), dtype=np.float32))"
for bin in bovw bovw-before; do
  start=$(date +%s%N)
  timeout 150 $B/$bin train --descriptors /tmp/x4m.npy --words 65536 --iterations 3 --tolerance -1 --seed 1 \
    --backend opencl --variant tiled-fp16 --verbose --output /tmp/v_$bin.npy > /tmp/train_$bin.log 2>&1
  rc=$? end=$(date +%s%N)
  echo "== $bin: exit $rc, wall $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f", (b - a) / 1e9}') s, md5 $(md5sum < /tmp/v_$bin.npy | cut -c1-12)"
  grep -iE "seeding|iteration|k-means on" /tmp/train_$bin.log | tail -6
done
cmp /tmp/v_bovw-before.npy /tmp/v_bovw.npy && echo "vocabularies identical"
