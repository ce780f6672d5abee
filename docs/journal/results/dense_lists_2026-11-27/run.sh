#!/bin/bash
# Same-run comparison: the bench before (51a06a8) and after the dense posting lists, alternating.
cd /tmp/dense_run
for round in 1 2; do
  for side in before after; do
    bin=/tmp/base/build/bench/retrieval/bovw_live_database_bench
    [ $side = after ] && bin=/work/main/build/bench/retrieval/bovw_live_database_bench
    rm -rf /tmp/lb_$side; mkdir -p /tmp/lb_$side
    $bin --images 10000,100000 --queries 300 --folder /tmp/lb_$side --json $side-$round.json > $side-$round.txt 2>&1
    echo "$side $round rc $? $(date +%T)"
  done
done
