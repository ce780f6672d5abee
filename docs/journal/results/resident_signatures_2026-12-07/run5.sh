#!/usr/bin/env bash
# Issue 22, 2026-12-07 about 16:22 UTC, written before the run, the last of a script cut down four
# times to the device time left (about 380 s after six calls got no machine; the earlier versions
# never ran): the servers host, cur, lanes at 16 clients and lanes at 64, then, if time is left, the
# profiled driver on the device side. cur = 286feac (the GPU's scan, one queue taken in turn), lanes =
# cur with lanes.patch (four queues under a writer-fair shared lock of the arena), host = cur with
# --signatures host; the driver: 10f373e with profile.patch.
# Expected: the profile puts about 4 ms of a device search on the host and 1-2 ms in pairSums; the
# server at 16 clients: host 300-345/s, cur 420-650/s (the library's verified search was 1.7x faster
# on the device), lanes at least cur.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/cur/bovw $D/lanes/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
$D/cur/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
$D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db | tail -1
load() {
  local threads=$(( $2 < 2 ? $2 : 2 ))
  BOVW_METHOD=${3:-POST} wrk -t$threads -c$2 -d${4:-8}s --timeout 30s -s bench/serve/post_images.lua "$1" -- "${jpegs[@]}" | tail -1
}
echo "== bovw serve"
n=0
for side in host cur lanes; do
  n=$((n + 1))
  place=auto; binary=$D/$side/bovw
  if [ $side = host ]; then place=host; binary=$D/cur/bovw; fi
  bovw_start_server $W/serve-$n $binary --index $W/db --log-level warn --signatures $place
  grep -h "ready on\|signatures" $W/serve-$n.out $W/serve-$n.err | cut -c1-160
  url="http://127.0.0.1:$port/search?top=10&verify=50"
  load "$url" 4 POST 3 > /dev/null
  echo "run $n $side 16 clients verify 50: $(load "$url" 16)"
  if [ $side = lanes ]; then echo "run $n $side 64 clients verify 50: $(load "$url" 64)"; fi
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting
  kill -TERM $server; wait $server
done
echo "== the library's search, one thread, profiled"
BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_profile $W/db $W/jpegs 2 device $W/results-device.txt
