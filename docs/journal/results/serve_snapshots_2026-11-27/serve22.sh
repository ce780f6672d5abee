#!/bin/bash
# Issue 22: bovw serve at 100,000 images with the default scoring (Hamming embedding: the database stores
# keypoints), top 10 verified 50, K = 16,384, alone and beside a client adding images: before (3dc8b99)
# and new (b516550: snapshots, incremental cosine norms, copies before the lock), one lease, same vocabulary.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=16384
nvidia-smi --query-gpu=name --format=csv,noheader; nproc; wrk --version 2>&1 | head -1
mkdir -p /tmp/serve-new /tmp/serve-before
$D/new/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/serve-new/vocabulary.bovw --quiet
cp /tmp/serve-new/vocabulary.bovw /tmp/serve-before/
for side in ${SIDES:-new before}; do
  echo "== $side"
  timeout 255 bash bench/serve/serve_bench.sh $D/$side /tmp/serve-$side 100000 1,16 8 '/search?top=10&verify=50' 2>&1 | tail -8
  grep -h "stage_seconds_sum\|stage_seconds_count" /tmp/serve-$side/metrics-100000.txt 2>/dev/null | head -12
  cp /tmp/serve-$side/serve_bench.jsonl $OUT/$side.jsonl 2>/dev/null
  cp /tmp/serve-$side/add-100000.json $OUT/$side-add.json 2>/dev/null
done
