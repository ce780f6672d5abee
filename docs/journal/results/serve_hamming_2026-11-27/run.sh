#!/bin/bash
# bovw serve at 100,000 images with the default scoring (Hamming embedding: the database stores keypoints),
# top 10 verified 50, before (d2ca7a8) and after (the marked signatures), H200 host.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=${BOVW_WORDS:-16384}
wrk --version 2>&1 | head -1
for side in sb sbase; do
  echo "== $side"
  timeout 280 bash bench/serve/serve_bench.sh $D/$side /tmp/serve-$side-$BOVW_WORDS 100000 1,16 8 '/search?top=10&verify=50' 2>&1 | tail -8
  grep -h "bovw_search_stage_seconds_sum\|bovw_search_stage_seconds_count" /tmp/serve-$side-$BOVW_WORDS/metrics-100000.txt 2>/dev/null | head -6
done
