#!/bin/bash
# Issue 22's slow PUTs after ~4,600 into a 100,000-image database with keypoints: the server with its
# features on the GPU (as on 2026-12-01, run3.sh) and with them on the CPU (NVIDIA's OpenCL not
# registered: auto takes the CPU path), 64 then 16 then 64 clients, 8 s each; /metrics after each.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_KEYPOINTS=1
mkdir -p /tmp/pb
for side in gpu cpu; do
  ( [ $side = gpu ] && source $D/opencl-env.sh
    out=/tmp/pb_$side; mkdir -p $out
    [ -f /tmp/pb/vocabulary.bovw ] || $D/b/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/pb/vocabulary.bovw --quiet
    cp /tmp/pb/vocabulary.bovw $out/
    echo "== $side"
    BOVW_METRICS_OUT=$OUT/metrics_$side.txt BOVW_BOVW=$D/b/bovw timeout 220 bash bench/serve/put_bench.sh $D/b $out 100000 64,16,64 8 2>&1 | tail -5
    cp $out/put_bench.json $OUT/put_bench_$side.json
    grep "bovw_write_stage_seconds_sum\|bovw_write_stage_seconds_count\|bovw_request_stage\|bovw_write_batch_requests_sum\|bovw_write_batch_requests_count" $OUT/metrics_$side.txt | head -20
    ls -la $out/db-100000.bovwlive; tail -2 $out/serve.err; rm -rf $out/db-100000.bovwlive )
done
