#!/usr/bin/env bash
# The last chance of the day's device time (six calls got no machine or lost it): run.sh's core only.
# before (a72d7f9), after (the samples without conversions and the columns' offsets), list (also the
# band list): exactness by `bovw extract` against each other and the CPU's builtin SURF, the SURF
# batches' descriptor stage, files to histograms with default flags on 24,000 ~640-px JPEGs.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
P=.device/patch
for b in before after list; do chmod +x $P/$b/*; done
w=/tmp/patch
mkdir -p $w
for b in before after list; do
  $P/$b/bovw extract .device/set -o $w/x_$b --format npy > /dev/null 2>&1 || echo "extract $b failed"
done
$P/after/bovw extract .device/set -o $w/x_cpu --format npy --surf-backend builtin > /dev/null 2>&1 || echo "extract cpu failed"
diff -rq $w/x_before $w/x_after && diff -rq $w/x_before $w/x_list && echo "extract: before, after and list identical ($(ls $w/x_after | wc -l) files)"
diff -rq $w/x_cpu $w/x_list && echo "extract: CPU builtin and list identical"
for b in before after list; do echo -n "$b: "; $P/$b/bovw_surf_bench --backend opencl --batch 50 --runs 5 .device/set 2>&1 | grep "^batches"; done
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$P/list/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
now() { date +%s%N; }
for r in 1 2; do
  for b in before after list; do
    s=$(now); $P/$b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(now)
    awk -v b=$b -v r=$r -v t=$((e - s)) 'BEGIN {printf "%s run %d: %.1f images/s\n", b, r, 24000 / (t / 1e9)}'
  done
done
cmp $w/h_before.npy $w/h_after.npy && cmp $w/h_before.npy $w/h_list.npy && echo "24,000: histograms identical"
$P/list/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
