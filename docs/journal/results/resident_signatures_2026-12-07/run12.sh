#!/usr/bin/env bash
# Issue 22, 2026-12-08 00:50, written before the run. run11 (H100): with the signatures scanned on the
# GPU the server's batched SURF took 26 ms a search against 9 with the host's scan. Hypothesis: the
# SURF batches' kernels wait for the SMs the scans' kernels hold (the scan has its own in-order queue on
# the process's one context). Test: the scan's queue at the lowest priority (cl_khr_priority_hints;
# branch scan-priority, BOVW_SCAN_PRIORITY=low; .device/prio/bovw), against the same binary's default
# queue and the host's scan, with the server's CPU seconds a search (one round, and the low queue again:
# the session's device time is short).
# Expected, if the driver takes priorities and the hypothesis holds: the features stage near the host
# side's (10-14 ms), ranking a little slower, the device side at 320-380/s against the host's 310-350.
# If it takes them and nothing moves, the wait is not for SMs (a driver lock, the host's threads), and
# wants a trace. If it takes none ("no" below), nothing is learned but that.
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/prio/bovw $D/cur/bench/serve/bovw_serving_database $D/bin/*
export PATH=$D/bin:$PATH
echo "tools: $(command -v perf nsys ncu 2>/dev/null | tr '\n' ' ') $(ls /usr/local/cuda*/bin/nsys 2>/dev/null)"
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_serving_database $D/jpegs $W $D/prio/bovw $D/cur/bench/serve/bovw_serving_database
echo "== bovw serve, 16 clients, top=10&verify=50, 8 s"
n=0
for side in device-default device-low host-default device-low; do
  n=$((n + 1))
  place=${side%-*}; priority=${side#*-}
  BOVW_SCAN_PRIORITY=$priority bovw_start_server $W/serve12-$n $D/prio/bovw --index $W/db --log-level warn --signatures $place
  grep -h "low priority" $W/serve12-$n.err | head -1
  echo -n "$side: "
  bovw_load_server "http://127.0.0.1:$port/search?top=10&verify=50"
  kill -TERM $server; wait $server
done
