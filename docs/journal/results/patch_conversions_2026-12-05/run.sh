#!/usr/bin/env bash
# Issue 25: the descriptor's patch kernel without conversions per window sample (kernels/surf_window.h).
# before: a72d7f9's kernels; samples: 016ce98 (a window sample without conversions); after: also the
# per-row offsets of each patch column once per work-group; bands1: after with one work-group a
# keypoint (SURF_BANDS 1: no work-groups that find their band empty and return, but a big window on
# one work-group); list: after with work-groups only for the bands a window takes (surf_extra_bands).
# Same run, alternating. Expectations and results: docs/journal/2026-12-05.md ("The patch kernel's
# window samples without conversions").
# 1. bit for bit on NVIDIA: `bovw extract` of the 150 JPEGs by before, after, list and the CPU's
#    builtin SURF, compared byte for byte (and the OpenCL SURF tests of list at the end, 4.);
# 2. bovw_surf_bench --batch 50 on the 150 JPEGs, two rounds: the descriptor stage per image;
# 3. files to histograms with default flags on 2,400 and 24,000 ~640-px JPEGs (two rounds) and 2,400
#    of 1600 x 1200 (one) by before, after and list, with list's --profile (device busy time).
# (Cut to fit the device time left after five calls that got no machine.)
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
P=.device/patch
for b in before samples after bands1 list; do chmod +x $P/$b/*; done
echo "== 1. exactness"
w=/tmp/patch
mkdir -p $w
for b in before after list; do
  $P/$b/bovw extract .device/set -o $w/x_$b --format npy > /dev/null 2>&1 || echo "extract $b failed"
done
$P/after/bovw extract .device/set -o $w/x_cpu --format npy --surf-backend builtin > /dev/null 2>&1 || echo "extract cpu failed"
diff -rq $w/x_before $w/x_after && diff -rq $w/x_before $w/x_list && echo "extract: before, after and list identical ($(ls $w/x_after | wc -l) files)"
diff -rq $w/x_cpu $w/x_after && echo "extract: CPU builtin and after identical"
# Ordered so that a run cut short by the device time left still brings one whole round of each.
echo "== 2-3. SURF batches and files to histograms, default flags"
bovw_copy_set .device/set 16 $w/small > /dev/null || exit 1
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$P/after/bovw_decode_bench --resize 1600x1200 $w/small $w/large > /dev/null || exit 1
$P/after/bovw train $w/small --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
now() { date +%s%N; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
histograms() {  # SET ROUND
  local n; n=$(ls $w/$1/*.jpg | wc -l)
  for b in before after list; do
    s=$(now); $P/$b/bovw histogram --images $w/$1 --vocabulary $w/v.bovw --quiet --output $w/h_$1_$b.npy > /dev/null 2>&1 || echo "$b failed"; e=$(now)
    echo "$1 ($n images) $b run $2: $(rate $n $((e - s))) images/s"
  done
}
for r in 1 2; do
  for b in before samples after bands1 list; do
    echo -n "$b run $r: "; $P/$b/bovw_surf_bench --backend opencl --batch 50 --runs 7 .device/set 2>&1 | grep "^batches"
  done
  histograms many $r
done
cmp $w/h_many_before.npy $w/h_many_after.npy && cmp $w/h_many_before.npy $w/h_many_list.npy && echo "many: histograms identical"
echo "many list --profile:"; $P/list/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
for set in small large; do
  histograms $set 1
  cmp $w/h_${set}_before.npy $w/h_${set}_after.npy && cmp $w/h_${set}_before.npy $w/h_${set}_list.npy && echo "$set: histograms identical"
  echo "$set list --profile:"; $P/list/bovw histogram --images $w/$set --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
done
echo "== 4. the OpenCL SURF tests (list) on the GPU"
BOVW_SURF_TEST_DATA=$PWD/tests/data/surf BOVW_OPENCV_DOC_DATA=$PWD/.device/images BOVW_DEVICE=NVIDIA \
  timeout 90 $P/list/bovw_opencl_surf_tests --gtest_brief=1 2>&1 | tail -6
