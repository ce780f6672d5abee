#!/bin/bash
# Where the server's time goes once its PUTs have slowed (issue 22): put_bench at 64 then 16 clients
# (8 s each) into a 100,000-image database with keypoints, perf of the server during the 16 clients.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export PATH=$D/bin:$PATH BOVW_SAMPLES=$D/jpegs BOVW_KEYPOINTS=1
source $D/opencl-env.sh
out=/tmp/pb_perf; mkdir -p $out
$D/b/bovw train $D/jpegs --words 1000 --seed 1 --output $out/vocabulary.bovw --quiet 2>/dev/null
BOVW_BOVW=$D/b/bovw timeout 200 bash bench/serve/put_bench.sh $D/b $out 100000 64,16,16 8 > $out/bench.txt 2>&1 &
bench=$!
# The 64-client run starts once the server is up (its log names the port); perf starts 10 s later.
for i in $(seq 1 120); do grep -q "127.0.0.1:" $out/serve.out 2>/dev/null && break; sleep 1; done
sleep 10
pid=$(pgrep -f "b/bovw serve" | head -1)
echo "server $pid"
perf record -F 499 -g -p $pid -o /tmp/perf.data -- sleep 7 2>&1 | tail -2
wait $bench
tail -5 $out/bench.txt
perf report -i /tmp/perf.data --no-children --percent-limit 1 --stdio 2>/dev/null | grep -E "^ +[0-9]" | head -40 > $OUT/perf_flat.txt
perf report -i /tmp/perf.data --children --percent-limit 3 --stdio -g none 2>/dev/null | grep -E "^ +[0-9]" | head -60 > $OUT/perf_children.txt
perf report -i /tmp/perf.data --no-children --percent-limit 3 --stdio -g caller,0.5,callee 2>/dev/null | head -250 > $OUT/perf_graph.txt
cat $OUT/perf_flat.txt; echo; cat $OUT/perf_children.txt | head -40
