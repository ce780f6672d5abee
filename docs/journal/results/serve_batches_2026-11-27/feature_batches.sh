#!/bin/bash
# Issue 22: the features stage alone on the GPU (bovw_feature_batches_bench), K = 16,384, the 59 opencv-doc JPEGs.
set -u
D=$PWD/.device
# The run unpacked the libraries and registered NVIDIA's OpenCL with these two steps written inline;
# bench/device_common.sh has them.
source bench/device_common.sh
bovw_use_libs $D/libs.tar.xz && bovw_opencl_env || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
[ -f /tmp/sb-batched/vocabulary.bovw ] || { mkdir -p /tmp/sb-batched; $D/cur/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/sb-batched/vocabulary.bovw --quiet; }
for round in 1; do
  $D/cur/bench/serve/bovw_feature_batches_bench --vocabulary /tmp/sb-batched/vocabulary.bovw --images $D/jpegs --phases "$@"
done 2>&1 | tee -a $OUT/feature_batches.txt
