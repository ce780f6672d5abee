#!/bin/bash
# The slow PUTs of 2026-12-01 (issue 22) were the bench's names: each wrk run named its PUTs
# wrk-<thread>-<n> from 1, so a second run replaced the first run's images. New names per run (the
# fixed put_bench.sh), then the same names on purpose (BOVW_PUT_REPLACE=1): 100,000 images with
# keypoints, GPU features, 8 s a run.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_KEYPOINTS=1
source $D/opencl-env.sh
mkdir -p /tmp/pb && $D/b/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/pb/vocabulary.bovw --quiet 2>/dev/null
for mode in new replace; do
  out=/tmp/pb_$mode; mkdir -p $out; cp /tmp/pb/vocabulary.bovw $out/
  echo "== $mode names"
  BOVW_PUT_REPLACE=$([ $mode = replace ] && echo 1 || echo 0) BOVW_METRICS_OUT=$OUT/metrics_$mode.txt BOVW_BOVW=$D/b/bovw \
    timeout 200 bash bench/serve/put_bench.sh $D/b $out 100000 64,16,64 8 2>&1 | tail -4
  cp $out/put_bench.json $OUT/put_bench_$mode.json
  grep 'bovw_write_stage_seconds_sum{stage="storing"}\|bovw_write_stage_seconds_count{stage="storing"}' $OUT/metrics_$mode.txt
done
