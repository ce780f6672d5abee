#!/bin/bash
# The third GPU run: is the 64-client collapse of run2 the clients or the database's growth? The
# after side alone, 100,000 images with keypoints, 64 then 16 then 64 clients, then the server's
# write stages from /metrics (put_bench keeps the server until the end: metrics read before it stops).
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_KEYPOINTS=1
mkdir -p /tmp/pb
[ -f /tmp/pb/vocabulary.bovw ] || $D/after/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/pb/vocabulary.bovw --quiet
out=/tmp/pbk3; mkdir -p $out; cp /tmp/pb/vocabulary.bovw $out/
BOVW_METRICS_OUT=$OUT/metrics_run3.txt BOVW_BOVW=$D/after/bovw timeout 200 bash bench/serve/put_bench.sh $D/after $out 100000 64,16,64 8 2>&1 | tail -4
cp $out/put_bench.json $OUT/put_bench_run3.json
grep "bovw_write_stage_seconds_sum\|bovw_write_stage_seconds_count\|bovw_feature_batch_images_sum\|bovw_feature_batch_images_count" $OUT/metrics_run3.txt
tail -3 $out/serve.err
