#!/usr/bin/env bash
# Issue 22, 2026-12-07 22:50, after run9.sh (H100 host: the device scan's server at 195-210/s against
# the host's 365-379, its features stage 35 ms a search against 8.5-9.3): where does the features
# stage's time go? Written before the run. Two hypotheses, one run of each scan, 16 clients,
# top=10&verify=50, 8 s:
#  H1, the GPU is busy: the scans' kernels (a batch's marks and runs passes) delay the batched SURF's:
#      nvidia-smi's SM utilisation during the load high (over 80%) with the device scan;
#  H2, the CPU is busy: NVIDIA's blocking waits spin, or the host waits elsewhere: the server's CPU
#      seconds a search (utime + stime over the load) as high with the device scan as with the host's.
# Expected: H2 (the GPU's figures from run7/run9 put a batch's scans at a few ms of GPU time).
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
ticks() { awk '{print $14 + $15}' /proc/$1/stat; }
n=0
for place in device host; do
  n=$((n + 1))
  bovw_start_server $W/serve-$n $D/scan/bovw --index $W/db --log-level warn --signatures $place
  url="http://127.0.0.1:$port/search?top=10&verify=50"
  BOVW_METHOD=POST wrk -t2 -c4 -d3s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" > /dev/null
  before=$(ticks $server)
  nvidia-smi dmon -s u -c 8 > $W/dmon-$n.txt &
  dmon=$!
  result=$(BOVW_METHOD=POST wrk -t2 -c16 -d8s --timeout 30s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" | tail -1)
  after=$(ticks $server)
  wait $dmon
  echo "$place: $result"
  python3 -c "import json,sys; r=json.loads(sys.argv[1]); t=($after-$before)/100.0; print('  server CPU %.1f s over the load, %.1f ms a search' % (t, 1000*t/r['requests']))" "$result"
  echo "  nvidia-smi dmon (sm %, mem %):"; grep -v '^#' $W/dmon-$n.txt | awk '{printf "  %s/%s", $2, $3} END {print ""}'
  echo "  threads by CPU (top 6):"; ps -L -o tid,pcpu,comm -p $server --sort=-pcpu | head -7 | tail -6 | tr '\n' ';'; echo
  kill -TERM $server; wait $server
done
