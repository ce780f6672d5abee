#!/usr/bin/env bash
# Issue 24: the new default (auto: tiled-fp16, 4 x 8 words a step) in files to histograms against
# tiled-tf32 by name, alternating, three rounds (24,000 ~640-px JPEGs: the 150 of make_ukbench_set.py
# --views 4 --seed 11 --max-side 800, 160 times; K = 1,000), outputs compared; the default at the
# issue's shapes; then Nsight Compute on tiled-fp16 at D = 64 and D = 128.
# Usage (GPU machine, project root, .device carried with .device/set): end_to_end.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
w=/tmp/e2e
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
n=$(ls $w/many/*.jpg | wc -l)
$B/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
ns() { date +%s%N; }
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
$B/bovw histogram --images .device/set --vocabulary $w/v.bovw --quiet --output $w/warm.npy > /dev/null 2>&1
$B/bovw histogram --images .device/set --vocabulary $w/v.bovw --variant tiled-tf32 --quiet --output $w/warm.npy > /dev/null 2>&1
for r in 1 2 3; do
  for v in auto tiled-tf32; do
    s=$(ns); $B/bovw histogram --images $w/many --vocabulary $w/v.bovw --variant $v --quiet --output $w/h_$v.npy > /dev/null 2>&1 || echo "$v failed"; e=$(ns)
    echo "$v, run $r: $(rate $n $((e - s))) images/s ($(( (e - s) / 1000000 )) ms)"
  done
done
cmp $w/h_auto.npy $w/h_tiled-tf32.npy && echo "histograms identical"
$B/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 >/dev/null | grep -E "^profile|tiled" | head -8
echo "== the default at the issue's shapes"
timeout 40 $B/bovw-bench --sizes 1048576x1024,1048576x4096 --variants auto --warmup 2 --repetitions 7 2>&1 | tail -2
timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants auto --warmup 2 --repetitions 7 2>&1 | tail -1
for shape in 1048576:1024:64 1048576:1024:128; do
  IFS=: read nn kk dd <<< "$shape"
  echo "== ncu, tiled-fp16, ${nn}x${kk}, D = $dd"
  VARIANT=tiled-fp16 NCU_MORE=1 timeout 150 bench/profiling/tf32_ncu.sh $B/bovw-bench $OUT/ncu_d$dd $nn $kk --dimension $dd \
    > $OUT/ncu_d$dd.txt 2>&1
  grep -E "ptxas|Duration|Issue Slots|Stall (Wait|Barrier|Long|Short|Math|Not Sel|Dispatch)|Occupancy|Registers|L2 Hit|L1/TEX Hit|Throughput" $OUT/ncu_d$dd.txt | head -24
  for f in $OUT/ncu_d$dd/ncu_sass.csv $OUT/ncu_d$dd/kernel.sass $OUT/ncu_d$dd/kernel.ptx; do [ -f $f ] && xz -f $f; done
  rm -rf $OUT/ncu_d$dd/ptx $OUT/ncu_d$dd/kernel.cubin $OUT/ncu_d$dd/tf32_under_cuda
done
