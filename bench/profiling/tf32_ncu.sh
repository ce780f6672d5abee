#!/usr/bin/env bash
# Issue 24: tiled-tf32 under Nsight Compute, which does not see OpenCL kernels. On the GPU machine,
# from the project root (NVIDIA's OpenCL registered, bovw's libraries on LD_LIBRARY_PATH):
#   bench/profiling/tf32_ncu.sh BOVW_BENCH OUT [N K]
# 1. bovw-bench runs the case and leaves the PTX that NVIDIA's OpenCL made ($BOVW_KERNEL_BINARIES);
# 2. tf32_under_cuda (built here against CUDA's driver API) runs that PTX with the host side's
#    buffers: its time should be bovw-bench's kernel time less the re-check;
# 3. ncu profiles one launch of it: OUT/ncu.txt.
set -uo pipefail
bench=$1 out=$2 n=${3:-1048576} k=${4:-1024}
cuda=/usr/local/cuda
mkdir -p "$out/ptx"
BOVW_DEVICE=NVIDIA BOVW_KERNEL_CACHE=off BOVW_KERNEL_BINARIES=$out/ptx "$bench" --sizes "${n}x${k}" \
  --variants tiled-tf32 --warmup 1 --repetitions 5 2>&1 | tail -1
ptx=$(ls "$out"/ptx/tiled_tf32-*.bin | head -1)
[ -f "$ptx" ] || { echo "no tiled_tf32 PTX in $out/ptx"; exit 1; }
g++ -O2 -std=c++17 -I$cuda/include bench/profiling/tf32_under_cuda.cpp -o "$out/tf32_under_cuda" \
  -L$cuda/lib64/stubs -lcuda || exit 1
"$out/tf32_under_cuda" "$ptx" "$n" "$k" 5
ncu=$(command -v ncu || echo $cuda/bin/ncu)
# The sections that say why the warps wait; NCU_MORE=1 adds the memory tables and the stalls per
# instruction (many more replays of the kernel).
sections=(SpeedOfLight Occupancy LaunchStats WarpStateStats SchedulerStats ComputeWorkloadAnalysis)
[ "${NCU_MORE:-0}" = 1 ] && sections+=(MemoryWorkloadAnalysis InstructionStats SourceCounters)
"$ncu" -k histogram_tiled_tf32 --launch-count 1 "${sections[@]/#/--section=}" \
  "$out/tf32_under_cuda" "$ptx" "$n" "$k" 1 > "$out/ncu.txt" 2>&1
echo "ncu: exit $?, $(wc -l < "$out/ncu.txt") lines in $out/ncu.txt"
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit" "$out/ncu.txt" | head -30
