#!/usr/bin/env bash
# Issue 22, 2026-12-07 about 16:40 UTC, written before the run, with about 200 s of device time left
# (not run this session: too little device time was left to start a machine; for the next one):
# the two-pass scan (branch signature-scan-v2, de3daa6: marks by chunk of a word's list, then the runs
# of the marked features) against the single kernel (device_driver_profile, 10f373e with profile.patch)
# in the library's search on one thread, device side only; then, if time is left, bovw serve with the
# two-pass scan and with the host's, 16 clients, `top=10&verify=50`.
# Expected: the driver's verify-0 mean 4.5-5.5 ms against 8.2 (the kernel's 3.5 ms down to a few
# tenths); the server with the two-pass scan at least the host's 363/s, since the GPU time a search
# falls about tenfold.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/cur/bovw $D/v2/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
$D/cur/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
$D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db | tail -1
echo "== the library's search, one thread, device side: single kernel, then two passes"
BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_profile $W/db $W/jpegs 2 device $W/r1.txt
OMP_NUM_THREADS=1 taskset -c 2 device_driver_v2 $W/db $W/jpegs 2 device $W/r2.txt
cmp $W/r1.txt $W/r2.txt && echo "rankings: identical"
echo "== bovw serve, 16 clients"
n=0
for side in v2 host; do
  n=$((n + 1))
  if [ $side = v2 ]; then binary=$D/v2/bovw; place=device; else binary=$D/cur/bovw; place=host; fi
  bovw_start_server $W/serve-$n $binary --index $W/db --log-level warn --signatures $place
  grep -h "ready on" $W/serve-$n.out | cut -c1-160
  url="http://127.0.0.1:$port/search?top=10&verify=50"
  BOVW_METHOD=POST wrk -t2 -c4 -d3s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" > /dev/null
  echo "run $n $side: $(BOVW_METHOD=POST wrk -t2 -c16 -d8s --timeout 30s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" | tail -1)"
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting
  kill -TERM $server; wait $server
done
