#!/bin/bash
# One pass over a block's dense words (double precision, summation order) on the GPU host's CPU
# (issue 21): a million synthetic images, then the query drivers before/after alternating on 1 and 16
# threads; last, spin3 (random reads over 4 GB: does this host stall such a process periodically?).
set -e
R=$(pwd)
tar xJf .device/qlibs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/qlibs
nproc; lscpu | grep -E "Model name|L2 cache|L3 cache"
W=/tmp/work; mkdir -p $W; cd $W
start=$(date +%s)
$R/.device/bin/od make db1m 1000000 > /dev/null
echo "made in $(( $(date +%s) - start )) s"
cat db1m/data.mdb > /dev/null
for threads in 1 16; do
  for r in 1 2 3; do
    echo "== $threads thread(s), round $r"
    echo "before: $(OMP_NUM_THREADS=$threads $R/.device/bin/qd_before db1m 200 before_$threads.txt)"
    echo "after:  $(OMP_NUM_THREADS=$threads $R/.device/bin/qd_after db1m 200 after_$threads.txt)"
  done
  python3 $R/.device/compare_names.py before_$threads.txt after_$threads.txt
done
$R/.device/bin/spin3 > spin3.txt
sort -k2 -n spin3.txt | awk 'NR==200{print "spin3 p50",$2} NR==396{print "spin3 p99",$2} END{print "spin3 max",$2}'
echo "total $(( $(date +%s) - start )) s"
