#!/bin/bash
# Fixed-point scores before/after on the GPU host's CPU (issue 21): make a million synthetic images,
# then alternate the two query drivers on 1 and 16 threads.
set -e
R=$(pwd)
tar xJf .device/qlibs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/qlibs
nproc; lscpu | grep -E "Model name|L2 cache|L3 cache"
W=$R/.device/work; mkdir -p $W; cd $W
start=$(date +%s)
$R/.device/bin/od make db1m 1000000
echo "made in $(( $(date +%s) - start )) s"
cat db1m/data.mdb > /dev/null
for threads in 1 16; do
  for r in 1 2 3; do
    echo "== $threads thread(s), round $r"
    echo "before: $(OMP_NUM_THREADS=$threads $R/.device/bin/qd_before db1m 200 before_$threads.txt)"
    echo "after:  $(OMP_NUM_THREADS=$threads $R/.device/bin/qd_after db1m 200 after_$threads.txt)"
  done
  python3 $R/docs/journal/results/fixed_point_2026-12-05/compare_names.py before_$threads.txt after_$threads.txt
done
echo "total $(( $(date +%s) - start )) s"
