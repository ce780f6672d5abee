#!/usr/bin/env bash
# Issue 22, 2026-12-07 22:55, written before the run: the runs pass counting each of a run's first 64
# marks' matches once (kernels/signature_runs.cl on the branch; .device/scan2/bovw and
# bin/device_driver_scan2) against run9's build (scan/bovw, device_driver_scan) and the host.
# Expected, if O(Q^2 M) in the slowest work-items was the runs pass's 3.96 ms: the lone device search's
# verify-0 mean about 3-4 ms lower than run9's 7.02 (p50 3.80 less so: most runs are one mark), and
# the server's device side well above run9's 195-210/s; if neither moves, the runs pass's time is
# elsewhere (its 7.8 million-item grid, the atomics) and wants a profile of its own.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/scan/bovw $D/scan2/bovw $D/cur/bench/serve/bovw_serving_database $D/bin/*
export PATH=$D/bin:$PATH
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
[ -f $W/vocabulary.bovw ] || $D/scan/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
[ -d $W/db ] || $D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db | tail -1
echo "== the library's search, one thread: counted marks, run9's kernel, counted again"
OMP_NUM_THREADS=1 taskset -c 2 device_driver_scan2 $W/db $W/jpegs 2 device $W/r11a.txt
OMP_NUM_THREADS=1 taskset -c 2 device_driver_scan $W/db $W/jpegs 2 device $W/r11b.txt
OMP_NUM_THREADS=1 taskset -c 2 device_driver_scan2 $W/db $W/jpegs 2 device $W/r11c.txt
cmp $W/r11a.txt $W/r11b.txt && echo "rankings: identical"
echo "== bovw serve, 16 clients, top=10&verify=50"
n=0
for side in scan2-device scan-host scan2-device scan-host; do
  n=$((n + 1))
  binary=$D/${side%-*}/bovw; place=${side#*-}
  bovw_start_server $W/serve11-$n $binary --index $W/db --log-level warn --signatures $place
  url="http://127.0.0.1:$port/search?top=10&verify=50"
  BOVW_METHOD=POST wrk -t2 -c4 -d3s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" > /dev/null
  echo "$side: $(BOVW_METHOD=POST wrk -t2 -c16 -d8s --timeout 30s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" | tail -1)"
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting | tr '\n' ' '; echo
  kill -TERM $server; wait $server
done
