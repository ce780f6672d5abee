#!/usr/bin/env bash
# k-means++ seeding on the device, 2026-12-07 10:58, written before the run (journal: "Seeding with
# eight work-items a row"). bovw-before: one work-item a row; bovw: eight, reading 32 neighbouring
# bytes of a row each step. Training at K = 16,384 on 4,000,000 x 64 uniform floats, one Lloyd
# iteration, tiled-fp16, two rounds alternating; then the bit-for-bit test of the device's seeding
# against the CPU's on the GPU.
# Expected: seeding 18-19 s (a quarter of 74 s at K = 65,536; about 1.1 ms a word) -> 7-10 s
# (0.45-0.6 ms a word: the 1 GB read of a round at 2-3 TB/s plus three blocking transfers); the
# vocabularies identical.
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
python3 -c "
import numpy as np
np.save('/tmp/x4m.npy', np.random.default_rng(1).random((4000000, 64), dtype=np.float32))"
for round in 1 2; do
  for bin in bovw-before bovw; do
    start=$(date +%s%N)
    timeout 100 $B/$bin train --descriptors /tmp/x4m.npy --words 16384 --iterations 1 --tolerance -1 --seed 1 \
      --backend opencl --variant tiled-fp16 --verbose --output /tmp/v_$bin.npy > /tmp/train_$bin.log 2>&1
    rc=$? end=$(date +%s%N)
    echo "== $bin, round $round: exit $rc, wall $(awk -v a=$start -v b=$end 'BEGIN {printf "%.2f", (b - a) / 1e9}') s, md5 $(md5sum < /tmp/v_$bin.npy | cut -c1-12)"
    grep -iE "seeding" /tmp/train_$bin.log | sed 's/.*k-means++/k-means++/'
  done
done
cmp /tmp/v_bovw-before.npy /tmp/v_bovw.npy && echo "vocabularies identical"
echo "== the device's seeding against the CPU's, bit for bit"
timeout 120 $B/bovw_sample_passes_tests --gtest_brief=1 2>&1 | grep -E "PASSED|FAILED|SKIPPED|Failure" | head
