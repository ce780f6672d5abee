#!/usr/bin/env bash
# Issue 24 at D = 128, where the time goes (timing and profile only; the kernels are the committed
# ones, in .device/bin's bovw-bench of 23:16, which writes each program's build log beside its
# binary). Cut at 23:55 to what about 2.5 minutes of device time allow, in order of need:
# (1) NVIDIA's JIT through OpenCL with -cl-nv-verbose: the registers and local memory it gives the
#     kernel, without and with -cl-nv-maxrregcount=128, beside the times;
# (2) ptxas (the toolkit's) on the same PTX, uncapped and at 128: registers and spills;
# (3) through the CUDA harness, the first pass alone with a fourth group an SM: at most 128 registers
#     (CU_JIT_MAX_REGISTERS), with the driver's carveout and with the most shared memory (100%);
# (4) the certificate's margin at 0, which decides every row unchecked (wrong near ties: timing
#     only), against (1)'s default: what the rows summed in the epilogue and the re-check cost;
# (5) BOVW_MMA_FROM_STARTS=1 (a step's first mma reads the starting values in place: the same
#     arithmetic, 16 moves a step fewer in the driver's SASS at D = 128) against the default, two
#     rounds alternating, and its diff against the OpenMP path at D = 64 and 128 (bovw-bench of 00:45).
# Usage (GPU machine, project root, .device carried): run.sh
set -uo pipefail
source bench/device_common.sh
bovw_gpu_setup || exit 1
B=.device/bin
cuda=/usr/local/cuda
w=$OUT/harness
bench() {  # bench BINARIES_DIR EXTRA...: 1M x 1,024, tiled-fp16, 2 warm-ups, median of 7 (D = 128 unless given)
  mkdir -p "$1"
  local dimension=128
  [ "${2:-}" = --dimension ] && { dimension=$3; set -- "$1" "${@:4}"; }
  BOVW_DEVICE=NVIDIA BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES="$1" $B/bovw-bench --sizes 1048576x1024 \
    --dimension $dimension --variants tiled-fp16 --warmup 2 --repetitions 7 "${@:2}" 2>&1 | grep -E '^tiled|error'
}
echo "== (1) NVIDIA's JIT through OpenCL, its build log and the time"
for cap in none 128; do
  opts="-cl-nv-verbose"; [ $cap = none ] || opts="-cl-nv-maxrregcount=$cap $opts"
  echo "-- $opts: $(bench $w/cap_$cap --build-options "$opts")"
  cat $w/cap_$cap/tiled_tensor-*.log 2>/dev/null | grep -i -E 'registers|spill|smem|error' | head -4
done
# (1b) a fourth group also needs local memory: 4 x 47.6 KB is beyond the 168 KB configuration, 4 x
# 32.3 KB with chunks of 4 n-tiles (--tiles ...,4) is within 132 KB
for cap in none 128; do
  opts="-cl-nv-verbose"; [ $cap = none ] || opts="-cl-nv-maxrregcount=$cap $opts"
  echo "-- chunks of 4 n-tiles, $opts: $(bench $w/stage4_$cap --tiles 2,4,4,1,4 --build-options "$opts")"
  cat $w/stage4_$cap/tiled_tensor-*.log 2>/dev/null | grep -i -E 'registers|spill|smem|error' | head -4
done
# would a cap change D = 64 (to be decided for every width at once)?
for cap in none 128; do
  opts="-cl-nv-verbose"; [ $cap = none ] || opts="-cl-nv-maxrregcount=$cap $opts"
  echo "-- D = 64, $opts: $(bench $w/d64_$cap --dimension 64 --build-options "$opts")"
  cat $w/d64_$cap/tiled_tensor-*.log 2>/dev/null | grep -i -E 'registers|spill' | head -2
done
# and groups of 8 warps (256 rows: half the words' L2 traffic a row), two an SM at 128 registers
echo "-- 8 warps a group, cap 128: $(bench $w/warps8 --tiles 2,4,8,1,8 --build-options "-cl-nv-maxrregcount=128 -cl-nv-verbose")"
cat $w/warps8/tiled_tensor-*.log 2>/dev/null | grep -i -E 'registers|spill|smem|error' | head -4
ptx=$(ls $w/cap_none/tiled_tensor-*.bin | head -1)
tr -d '\000' < "$ptx" > $w/kernel.ptx
echo "== (2) ptxas on the same PTX"
for cap in 0 128; do
  echo "-- maxrregcount $cap: $($cuda/bin/ptxas -arch=sm_90 -v $( [ $cap = 0 ] || echo --maxrregcount $cap ) \
    $w/kernel.ptx -o /dev/null 2>&1 | grep -E 'registers|spill' | tr '\n' ' ')"
done
echo "== (3) the harness, the first pass only (5 launches each)"
g++ -O2 -std=c++17 -I$cuda/include bench/profiling/tf32_under_cuda.cpp -o $w/tf32_under_cuda -L$cuda/lib64/stubs -lcuda \
  || exit 1
for env in "" "BOVW_MAX_REGISTERS=128" "BOVW_MAX_REGISTERS=128 BOVW_CARVEOUT=100" ""; do
  echo "-- ${env:-default}"
  env $env timeout 30 $w/tf32_under_cuda "$ptx" 1048576 1024 5 | sed -n '1p;$p'
done
echo "== (4) margin 0: $(bench $w/margin0 --build-options -DBOVW_MARGIN_SCALE=0.0f)"
echo "== (5) a step's first mma from the starting values in place (BOVW_MMA_FROM_STARTS), against the default"
for r in 1 2; do
  echo "-- default:            $(bench $w/r$r)"
  echo "-- from starts:        $(bench $w/f$r --build-options -DBOVW_MMA_FROM_STARTS=1)"
  echo "-- default, D = 64:    $(bench $w/r$r --dimension 64)"
  echo "-- from starts, D = 64: $(bench $w/f$r --dimension 64 --build-options -DBOVW_MMA_FROM_STARTS=1)"
done
for d in 64 128; do  # exact? diff against the OpenMP path
  BOVW_DEVICE=NVIDIA $B/bovw-bench --sizes 100003x999 --dimension $d --variants openmp,tiled-fp16 --warmup 0 \
    --repetitions 1 --build-options -DBOVW_MMA_FROM_STARTS=1 2>&1 | grep -E '^tiled|error'
done
rm -rf $w
