#!/bin/bash
# Group commit in `bovw serve` (2026-12-01), on the GPU machine: PUTs per second against concurrent
# clients, before (bovw at 03e5d44) and after (ef77db7), alternating, real JPEGs (opencv-doc's),
# bench/serve/put_bench.sh. Carried in .device/: libs.tar.xz, opencl-env.sh, bin/wrk, jpegs/,
# after/{bovw,bench/serve/bovw_serving_database}, before/bovw.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
mkdir -p /tmp/pb
$D/after/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/pb/vocabulary.bovw --quiet
for round in 1 2; do
  for side in after before; do
    echo "== round $round, $side, 10,000 images"
    out=/tmp/pb-$side-$round; mkdir -p $out; cp /tmp/pb/vocabulary.bovw $out/
    BOVW_BOVW=$D/$side/bovw timeout 150 bash bench/serve/put_bench.sh $D/after $out 10000 1,16,64 8 2>&1 | tail -4
    head -1 $out/serve.out
    cp $out/put_bench.json $OUT/put_bench_10000_${side}_$round.json 2>/dev/null
  done
done
