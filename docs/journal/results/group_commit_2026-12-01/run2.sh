#!/bin/bash
# The second GPU run: 100,000 images that store keypoints (the database `bovw serve` verifies with),
# before and after alternating, real JPEGs, 16 and 64 clients. Carried as run.sh.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_KEYPOINTS=1
mkdir -p /tmp/pb
[ -f /tmp/pb/vocabulary.bovw ] || $D/after/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/pb/vocabulary.bovw --quiet
for side in after before after before; do
  echo "== $side, 100,000 images with keypoints"
  out=/tmp/pbk-$side; mkdir -p $out; cp /tmp/pb/vocabulary.bovw $out/
  start=$(date +%s)
  BOVW_BOVW=$D/$side/bovw timeout 130 bash bench/serve/put_bench.sh $D/after $out 100000 16,64 8 2>&1 | tail -3
  echo "($(( $(date +%s) - start )) s)"
  cp $out/put_bench.json $OUT/put_bench_100000k_${side}_$RANDOM.json 2>/dev/null
done
