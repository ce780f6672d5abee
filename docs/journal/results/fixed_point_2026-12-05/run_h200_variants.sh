#!/bin/bash
# Variants of the one-pass dense loop on the GPU host's CPU (issue 21): a million synthetic images
# made there, then the library before, after, and after with the dense words one at a time (PERWORD),
# with a T0 prefetch (T0), without a prefetch (NOPF); one thread, two rounds; then 16 threads.
set -e
R=$(pwd)
tar xJf .device2/qlibs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/qlibs
mkdir -p /tmp/fpwork && cd /tmp/fpwork
start=$(date +%s)
[ -d db1m ] || $R/.device2/bin/od make db1m 1000000 > /dev/null
echo "made in $(( $(date +%s) - start )) s"
cat db1m/data.mdb > /dev/null
for r in 1 2; do
  for v in before after PERWORD T0 NOPF; do
    echo "$v, 1 thread, round $r: $(OMP_NUM_THREADS=1 $R/.device2/bin/qd_$v db1m 150 v_$v.txt)"
  done
done
for v in before after PERWORD; do
  echo "$v, 16 threads: $(OMP_NUM_THREADS=16 $R/.device2/bin/qd_$v db1m 150 w_$v.txt)"
done
echo "total $(( $(date +%s) - start )) s"
