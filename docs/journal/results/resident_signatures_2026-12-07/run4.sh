#!/usr/bin/env bash
# Issue 22, 2026-12-07 about 16:10 UTC, written before the run: run3.sh cut to fit the device time
# left (about 570 s after four calls got no machine): the profiled driver on the device side only,
# the servers host, cur, lanes, cur, lanes at 16 clients, the second pair also at 64, the last lanes
# also beside an adding client. Binaries and expectations as run3.sh.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/cur/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH
nproc; lscpu | grep "Model name"
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
$D/cur/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
s=$(date +%s.%N)
$D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db > /dev/null
echo "database: $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"

echo "== the library's search, one thread, profiled"
for side in device; do
  BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_profile $W/db $W/jpegs 2 $side $W/results-$side.txt
done

echo "== the CLI's files-to-histograms ceiling"
mkdir -p $W/jpegs20
for copy in $(seq 20); do for f in "${jpegs[@]}"; do ln -sf "$f" "$W/jpegs20/$copy-$(basename "$f")"; done; done
s=$(date +%s.%N)
$D/cur/bovw histogram --images $W/jpegs20 --vocabulary $W/vocabulary.bovw --output $W/h.npy --quiet > /dev/null
python3 -c "print('%.1f images/s' % ($((20 * ${#jpegs[@]})) / ($(date +%s.%N) - $s)))"

# load URL CLIENTS [METHOD]: one wrk run, its JSON summary line.
load() {
  local threads=$(( $2 < 2 ? $2 : 2 ))
  BOVW_METHOD=${3:-POST} wrk -t$threads -c$2 -d${4:-8}s --timeout 30s -s bench/serve/post_images.lua "$1" -- "${jpegs[@]}" | tail -1
}
echo "== bovw serve"
chmod +x $D/lanes/bovw
n=0
for side in host cur lanes cur lanes; do
  n=$((n + 1))
  place=auto; binary=$D/$side/bovw
  if [ $side = host ]; then place=host; binary=$D/cur/bovw; fi
  bovw_start_server $W/serve-$n $binary --index $W/db --log-level warn --signatures $place
  grep -h "ready on\|signatures" $W/serve-$n.out $W/serve-$n.err | cut -c1-160
  url="http://127.0.0.1:$port/search?top=10&verify=50"
  load "$url" 4 POST 3 > /dev/null
  echo "run $n $side 16 clients verify 50: $(load "$url" 16)"
  if [ $n -ge 4 ]; then echo "run $n $side 64 clients verify 50: $(load "$url" 64)"; fi
  if [ $n = 5 ]; then
    load "http://127.0.0.1:$port" 1 PUT > $W/add.json &
    adder=$!
    echo "run $n $side 8 clients beside an adding client: $(load "$url" 8)"
    wait $adder; echo "run $n the adding client: $(cat $W/add.json)"
  fi
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting
  kill -TERM $server; wait $server
done
