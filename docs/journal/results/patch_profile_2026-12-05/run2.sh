#!/usr/bin/env bash
# Issue 25, second run: the kernels of 64f5d8c ("next": work-groups of 128, the row starts' loop
# without a quantum per row, 32-bit quad indices) against before (a72d7f9) and keep (368413f), with
# parts taken out of next (variants.py) to see what is left; and the SASS that ptxas makes of the
# PTX (registers, spills, the instructions of a window sample), which the first run's ptxas refused.
# 1. SASS and resources of surf_descriptor.cl and tiled_tf32.cl (the PTX saved by the first run is
#    made again here by next);
# 2. bovw_surf_bench --batch 50 on the 150 JPEGs, three rounds alternating: the descriptor stage;
# 3. exactness: the OpenCL SURF tests of next and group64 on the GPU; `bovw extract` of next against
#    the CPU's builtin SURF;
# 4. files to histograms with default flags on 24,000 ~640-px JPEGs, before, keep and next, two rounds.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
P=.device/prof
Q=.device/prof2
chmod +x $P/*/* $Q/*/*
w=/tmp/prof2
mkdir -p $w/ptx
echo "== 1. SASS"
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx $Q/next/bovw_surf_bench --backend opencl --batch 50 --runs 1 .device/set > /dev/null 2>&1
BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$w/ptx BOVW_DEVICE=NVIDIA $Q/next/bovw demo --backend opencl --variant tiled-tf32 > /dev/null 2>&1
ls $w/ptx
CUDA=$(dirname "$(dirname "$(command -v ptxas || ls /usr/local/cuda/bin/ptxas)")")
"$CUDA/bin/ptxas" --version | tail -2
for f in $w/ptx/surf_descriptor*.bin $w/ptx/tiled_tf32*.bin; do
  name=$(basename "$f" .bin)
  for v in 9.0 8.8 8.7 8.6 8.5 8.4 8.3 8.2 8.1 8.0; do
    sed "s/^\.version 9\.0$/.version $v/" "$f" > $w/$name.ptx
    if "$CUDA/bin/ptxas" -arch=sm_90 -v $w/$name.ptx -o $w/$name.cubin > $w/$name.ptxas.txt 2>&1; then
      echo "-- $name (PTX as .version $v): $(cat $f.options)"; grep -E "Compiling entry|Used|spill" $w/$name.ptxas.txt | sed 's/ptxas info    : //'
      "$CUDA/bin/cuobjdump" -sass $w/$name.cubin > $w/$name.sass 2>&1 && cp $w/$name.sass "${OUT:-/tmp}/"
      break
    fi
  done
  [ -f $w/$name.cubin ] || { echo "-- $name: ptxas failed"; head -5 $w/$name.ptxas.txt; }
done
echo "== 2. descriptor stage"
for r in 1 2 3; do
  for b in $P/before $P/keep $Q/next $Q/nosamples $Q/noserial $Q/nopatch $Q/noarith $Q/group64; do
    echo -n "$(basename $b) run $r: "; $b/bovw_surf_bench --backend opencl --batch 50 --runs 7 .device/set 2>&1 | grep "^batches"
  done
done
echo "== 3. exactness"
for b in next group64; do
  echo -n "$b tests: "
  BOVW_SURF_TEST_DATA=$PWD/tests/data/surf BOVW_OPENCV_DOC_DATA=$PWD/.device/images BOVW_DEVICE=NVIDIA \
    timeout 120 $Q/$b/bovw_opencl_surf_tests --gtest_brief=1 2>&1 | tail -1
done
$Q/next/bovw extract .device/set -o $w/x_next --format npy > /dev/null 2>&1 || echo "extract next failed"
$Q/next/bovw extract .device/set -o $w/x_cpu --format npy --surf-backend builtin > /dev/null 2>&1 || echo "extract cpu failed"
diff -rq $w/x_cpu $w/x_next && echo "extract: next and the CPU identical ($(ls $w/x_next | wc -l) files)"
echo "== 4. files to histograms, default flags"
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
$Q/next/bovw train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
n=$(ls $w/many/*.jpg | wc -l)
for r in 1 2; do
  for b in $P/before $P/keep $Q/next; do
    s=$(date +%s%N); $b/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$(basename $b).npy > /dev/null 2>&1 || echo "$b failed"; e=$(date +%s%N)
    echo "$n images, $(basename $b) run $r: $(awk -v n=$n -v t=$((e - s)) 'BEGIN {printf "%.1f", n / (t / 1e9)}') images/s"
  done
done
cmp $w/h_before.npy $w/h_next.npy && echo "histograms identical"
echo "next --profile:"; $Q/next/bovw histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p.npy 2>&1 | grep "^profile"
