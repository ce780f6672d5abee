#!/usr/bin/env bash
# Issue 24: tiled-fp16 at D = 128 after the prologue change: shapes (m-tiles, n-tiles, warps, -,
# staged n-tiles) in two rounds, then Nsight Compute on the default shape.
# Usage (GPU machine, project root, .device carried): d128.sh
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
chmod +x .device/bin/*
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for round in 1 2; do
  for tiles in 2,4,4,1,8 2,2,4,1,8 2,1,4,1,8 2,4,4,1,4 1,2,4,1,8 1,4,8,1,8 2,2,3,1,8 2,4,2,1,8; do
    echo "== $tiles, round $round: $(timeout 30 $B/bovw-bench --sizes 1048576x1024 --dimension 128 --variants tiled-fp16 \
      --tiles $tiles --warmup 2 --repetitions 5 2>&1 | tail -1)"
  done
done
echo "== ncu, tiled-fp16, 1048576x1024, D = 128"
VARIANT=tiled-fp16 NCU_MORE=1 timeout 150 bench/profiling/tf32_ncu.sh $B/bovw-bench $OUT/ncu 1048576 1024 --dimension 128 \
  > $OUT/ncu_d128.txt 2>&1
grep -E "ptxas|Duration|Issue Slots|Stall (Wait|Barrier|Long|Short|Math|Not Sel|Dispatch)|Occupancy|Registers|Tensor Cycles" $OUT/ncu_d128.txt | head -24
for f in $OUT/ncu/ncu_sass.csv $OUT/ncu/kernel.sass; do [ -f $f ] && xz -f $f; done
rm -rf $OUT/ncu/ptx $OUT/ncu/kernel.cubin $OUT/ncu/tf32_under_cuda $OUT/ncu/report.ncu-rep $OUT/ncu/kernel.ptx
