#!/bin/bash
# Issue 22, default verified Hamming search, 100,000 images, K = 16,384, both batched (default):
# prev (ranking before POPCNT, partial sort, norms' units) and cur (after), one lease.
set -u
D=$PWD/.device
# The run unpacked the libraries and registered NVIDIA's OpenCL with these two steps written inline;
# bench/device_common.sh has them.
source bench/device_common.sh
bovw_use_libs $D/libs.tar.xz && bovw_opencl_env || exit 1
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=16384
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
mkdir -p /tmp/r7-prev /tmp/r7-cur
$D/cur/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/r7-cur/vocabulary.bovw --quiet
cp /tmp/r7-cur/vocabulary.bovw /tmp/r7-prev/
for side in cur prev; do
  echo "== $side"
  timeout 250 bash bench/serve/serve_bench.sh $D/$side /tmp/r7-$side 100000 1,16 8 '/search?top=10&verify=50' 2>&1 | tail -6
  grep -h "search_stage_seconds_sum\|search_stage_seconds_count" /tmp/r7-$side/metrics-100000.txt | grep -v waiting
  cp /tmp/r7-$side/serve_bench.jsonl $OUT/$side.jsonl; cp /tmp/r7-$side/metrics-100000.txt $OUT/$side-metrics.txt
done
