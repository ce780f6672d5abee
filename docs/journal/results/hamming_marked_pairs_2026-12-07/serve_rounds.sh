#!/usr/bin/env bash
# Issue 22, 2026-12-07 about 13:27, written before the run: the server comparison of gpu_host.sh again,
# with rounds, since one round each could not rank the two (the machine changed between them).
# prev = b9379b9 (before today's ranking changes), cur = HEAD (marked pairs, prefetched visits, the
# shortlist on the request's threads: one a request at the default --workers, so unchanged here).
# Order prev, cur, cur, prev; 100,000 images, K = 16,384, 16 clients, 6 s, `top=10&verify=50`.
# Expected: cur 1.05-1.2x prev in both pairs (the library's search alone was 1.16-1.2x by the mean);
# the ranking stage 36-40 ms against 41-42.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/cur/bovw $D/prev/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=16384 BOVW_SERVING_DATABASE=$D/cur/bench/serve/bovw_serving_database
mkdir -p /tmp/v
$D/cur/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/v/vocabulary.bovw --quiet
n=0
for side in prev cur cur prev; do
  n=$((n + 1)); out=/tmp/r$n-$side; mkdir -p $out; cp /tmp/v/vocabulary.bovw $out/
  echo "== serve, run $n, $side"
  timeout 150 bash bench/serve/serve_bench.sh $D/$side $out 100000 16 6 '/search?top=10&verify=50' 2>&1 | grep -E "search  |cli-histogram"
  grep -h "search_stage_seconds_sum\|search_stage_seconds_count" $out/metrics-100000.txt | grep -v waiting
  cp $out/serve_bench.jsonl $OUT/run$n-$side.jsonl
done
