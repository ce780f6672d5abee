#!/bin/bash
# Issue 22: bovw serve at 100,000 images, K = 16,384, QUERY ($1), with the features of concurrent
# requests batched (auto: 16 on a GPU) and not (--batch-images 1): same binary (2815deb), one lease.
set -u
query=$1
D=$PWD/.device
# The run unpacked the libraries and registered NVIDIA's OpenCL with these two steps written inline;
# bench/device_common.sh has them.
source bench/device_common.sh
bovw_use_libs $D/libs.tar.xz && bovw_opencl_env || exit 1
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=16384
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
mkdir -p /tmp/sb-batched /tmp/sb-single
[ -f /tmp/sb-batched/vocabulary.bovw ] || $D/cur/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/sb-batched/vocabulary.bovw --quiet
cp /tmp/sb-batched/vocabulary.bovw /tmp/sb-single/
tag=$(echo "$query" | tr -c 'a-z0-9' '_')
for side in ${SIDES:-single batched}; do
  echo "== $side $query"
  opts=""; [ $side = single ] && opts="--batch-images 1"
  BOVW_SERVE_ONLY_OPTIONS="$opts" timeout 280 bash bench/serve/serve_bench.sh $D/cur /tmp/sb-$side 100000 ${CLIENTS:-1,16,64} 8 "$query" 2>&1 | tail -8
  grep -h "stage_seconds_sum\|stage_seconds_count\|feature_batch_images_sum\|feature_batch_images_count" /tmp/sb-$side/metrics-100000.txt 2>/dev/null
  cp /tmp/sb-$side/serve_bench.jsonl $OUT/$side-$tag.jsonl 2>/dev/null
  cp /tmp/sb-$side/metrics-100000.txt $OUT/$side-$tag-metrics.txt 2>/dev/null
done
