#!/usr/bin/env bash
# Issue 24: tiled-tf32 (or tiled-fp16, with VARIANT=tiled-fp16) under Nsight Compute, which does
# not see OpenCL kernels. On the GPU machine, from the project root (NVIDIA's OpenCL registered,
# bovw's libraries on LD_LIBRARY_PATH):
#   [VARIANT=tiled-fp16] bench/profiling/tf32_ncu.sh BOVW_BENCH OUT [N K [BOVW_BENCH OPTIONS...]]
# 1. bovw-bench runs the case and leaves the PTX that NVIDIA's OpenCL made ($BOVW_KERNEL_BINARIES);
#    ptxas -v says its registers and spills, and OUT/kernel.sass is its machine code;
# 2. tf32_under_cuda (built here against CUDA's driver API) runs that PTX with the host side's
#    buffers: its time should be bovw-bench's kernel time less the re-check;
# 3. ncu profiles one launch of it: OUT/ncu.txt, and OUT/ncu_sass.csv the stall samples per SASS
#    instruction (with NCU_MORE=1, which also adds the memory tables: many more replays).
set -uo pipefail
bench=$1 out=$2 n=${3:-1048576} k=${4:-1024}
shift $(($# < 4 ? $# : 4))
cuda=/usr/local/cuda
mkdir -p "$out/ptx"
BOVW_DEVICE=NVIDIA BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$out/ptx "$bench" --sizes "${n}x${k}" \
  --variants "${VARIANT:-tiled-tf32}" --warmup 1 --repetitions 5 "$@" 2>&1 | tail -1
ptx=$(ls "$out"/ptx/tiled_tensor-*.bin | head -1)
[ -f "$ptx" ] || { echo "no tiled_tensor PTX in $out/ptx"; exit 1; }
tr -d '\000' < "$ptx" > "$out/kernel.ptx"
echo "ptxas: $("$cuda/bin/ptxas" -arch=sm_90 -v "$out/kernel.ptx" -o "$out/kernel.cubin" 2>&1 | grep -E 'Used|spill' | tr '\n' ' ')"
"$cuda/bin/cuobjdump" -sass "$out/kernel.cubin" > "$out/kernel.sass" 2>&1
g++ -O2 -std=c++17 -I$cuda/include bench/profiling/tf32_under_cuda.cpp -o "$out/tf32_under_cuda" \
  -L$cuda/lib64/stubs -lcuda || exit 1
"$out/tf32_under_cuda" "$ptx" "$n" "$k" 5
ncu=$(command -v ncu || echo $cuda/bin/ncu)
# The sections that say why the warps wait; NCU_MORE=1 adds the memory tables and the stalls per
# instruction.
sections=(SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats ComputeWorkloadAnalysis)
[ "${NCU_MORE:-0}" = 1 ] && sections+=(MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Tables InstructionStats SourceCounters)
"$ncu" -k histogram_tiled_tensor --launch-count 1 "${sections[@]/#/--section=}" -f -o "$out/report" \
  "$out/tf32_under_cuda" "$ptx" "$n" "$k" 1 > "$out/ncu_run.txt" 2>&1
echo "ncu: exit $?"
"$ncu" -i "$out/report.ncu-rep" --print-details all > "$out/ncu.txt" 2>&1
[ "${NCU_MORE:-0}" = 1 ] &&
  "$ncu" -i "$out/report.ncu-rep" --page source --csv --print-source sass > "$out/ncu_sass.csv" 2>&1
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Stall" "$out/ncu.txt" | head -40
