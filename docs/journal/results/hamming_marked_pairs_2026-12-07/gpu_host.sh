#!/usr/bin/env bash
# Issue 22, 2026-12-07 about 13:00, written before the run. The verified default search (Hamming
# embedding, top 10, verify 50) at 100,000 images, K = 16,384, on the GPU host:
#  1. `bovw serve` under wrk (bench/serve/serve_bench.sh, 1 and 16 clients, 8 s a point, then 8 clients
#     beside an adding client): prev = main before today's ranking changes (b9379b9; it differs from
#     41a35a7 only in the seeding kernel, which serving does not run), cur = with them (marked pairs,
#     prefetched visits). One round each, prev first.
#  2. The library's search alone (query_driver.cpp, one thread on core 2, 59 queries x 5): qd-before
#     (41a35a7) and qd-after, alternating, three rounds, verify 0 and 50, on cur's database.
# Expected: the driver's mean 1.15-1.3x lower after, its p99 (the 16,600-feature query) about 1.3x;
# the server at 16 clients 200-210 searches/s before (202.8 on 2026-11-27, an H200) and 220-250 after,
# since ranking is about 60 of the 80 ms of work a search and today's changes take 15-25% of it.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/cur/bovw $D/prev/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_WORDS=16384 BOVW_SERVING_DATABASE=$D/cur/bench/serve/bovw_serving_database
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep "Model name"
mkdir -p /tmp/r-cur /tmp/r-prev
$D/cur/bovw train $D/jpegs --words 16384 --seed 1 --output /tmp/r-cur/vocabulary.bovw --quiet
cp /tmp/r-cur/vocabulary.bovw /tmp/r-prev/
for side in prev cur; do
  echo "== serve, $side"
  timeout 200 bash bench/serve/serve_bench.sh $D/$side /tmp/r-$side 100000 1,16 8 '/search?top=10&verify=50' 2>&1 | tail -5
  grep -h "search_stage_seconds_sum\|search_stage_seconds_count" /tmp/r-$side/metrics-100000.txt | grep -v waiting
  cp /tmp/r-$side/serve_bench.jsonl $OUT/$side.jsonl; cp /tmp/r-$side/metrics-100000.txt $OUT/$side-metrics.txt
done
echo "== the library's search, one thread"
for r in 1 2 3; do for v in 0 50; do for b in before after; do
  echo "round $r verify $v $b: $(OMP_NUM_THREADS=1 taskset -c 2 $D/bin/qd-$b /tmp/r-cur/db-100000.bovwlive $D/jpegs $v 5 2>/dev/null)"
done; done; done
