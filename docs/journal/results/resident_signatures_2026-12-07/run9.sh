#!/usr/bin/env bash
# NOT RUN (written 2026-12-07, eighth session, 21:40: no device machine was lent). For the next lease.
# Issue 22: branch signature-scan-v2 at 93908a0, the runs pass reading a run's bounds and marks 32 at a
# time (48164f0) and concurrent searches' scans batched into one launch sequence (93908a0), against
# the host's scan, in one lease: the library's lone search (device_driver_scan, the branch's library,
# one thread: device side and host side), then `bovw serve` (the branch's binary, .device/scan/bovw)
# with --signatures host and device alternating, 16 clients, top=10&verify=50, two rounds.
# Needs in .device/ (carry [".device"]): scan/bovw, bin/device_driver_scan (both built from the
# branch), cur/bench/serve/bovw_serving_database, jpegs/, libs.tar.xz.
# Expected, written before the run:
# - lone search, verify 0, device side: about 3.7 ms mean on an H100 (7.19 with the single kernel on
#   2026-12-07), the host side about 6-8 ms (H100 host; compare only within this run);
# - the server: with the scans batched, a batch of the 16 waiting searches costs about the GPU time of
#   their scans (marks about 0.06 ms and runs about 0.3 ms each: about 6 ms a batch) plus two round
#   trips, where each search used to hold the queue for its own; so the device side at least the
#   host's rate (247-252/s on an H200 host, 302-363 on an H100 host earlier), and its ranking stage
#   under load well below the host's 50 ms a search. If it is not, the features stage's time (33 ms
#   a search with the device scan against 8.5 with the host's, 2026-12-07) says the scans and the
#   batched SURF still queue behind each other on the one in-order queue.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/scan/bovw $D/cur/bench/serve/bovw_serving_database $D/bin/*
export PATH=$D/bin:$PATH
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
$D/scan/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
$D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db | tail -1
echo "== the library's search, one thread: device side, then host side"
OMP_NUM_THREADS=1 taskset -c 2 device_driver_scan $W/db $W/jpegs 2 device $W/rd.txt
OMP_NUM_THREADS=1 taskset -c 2 device_driver_scan $W/db $W/jpegs 2 host $W/rh.txt
cmp $W/rd.txt $W/rh.txt && echo "rankings: identical"
echo "== bovw serve, 16 clients, top=10&verify=50"
n=0
for round in 1 2; do
  for place in device host; do
    n=$((n + 1))
    bovw_start_server $W/serve-$n $D/scan/bovw --index $W/db --log-level warn --signatures $place
    url="http://127.0.0.1:$port/search?top=10&verify=50"
    BOVW_METHOD=POST wrk -t2 -c4 -d3s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" > /dev/null
    echo "round $round $place: $(BOVW_METHOD=POST wrk -t2 -c16 -d8s --timeout 30s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" | tail -1)"
    python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
      "http://127.0.0.1:$port/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting
    kill -TERM $server; wait $server
  done
done
