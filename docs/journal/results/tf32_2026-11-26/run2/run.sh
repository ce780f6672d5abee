#!/usr/bin/env bash
# On the GPU machine: issue 24's measurements in one run. Usage: .device/tf32_run.sh [quick]
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $OUT/gpu.txt
echo "== golden suites, tiled-tf32 on the GPU"
timeout 300 $B/bovw_core_tests --gtest_filter='*TiledExact*:*tiled_tf32*:Tf32*:*opencl_tiled*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "exit $?"; grep -E "FAILED|PASSED|tests ran" $OUT/tests.txt | tail -8
echo "== kernels (registers, spills)"
mkdir -p /tmp/k; BOVW_KERNEL_BINARIES=/tmp/k $B/bovw-bench --sizes 65536x1024 --variants tiled,tiled-tf32 --warmup 1 --repetitions 2 > /dev/null 2>&1
for ptx in /tmp/k/*.bin; do
  echo "$(cat $ptx.options)"; ptxas -arch=sm_90 -v -o /dev/null $ptx 2>&1 | grep -E "Compiling entry|registers|spill" | head -8; done > $OUT/ptxas.txt 2>&1
head -30 $OUT/ptxas.txt
echo "== shapes of tiled-tf32 (warps x m-tiles x n-tiles), 1M x 1024, D = 64"
for t in 2,2,4,1,8 2,2,2,1,8 2,1,2,1,8 2,4,4,1,8 2,2,8,1,8 1,2,8,1,8; do
  echo -n "tiles $t: "; $B/bovw-bench --sizes 1048576x1024 --variants tiled-tf32 --tiles $t --warmup 2 --repetitions 5 2>&1 | grep -E "^ *tiled-tf32|1048576" | tail -1
done
[[ "${1:-}" == quick ]] && exit 0
echo "== bovw-bench: openmp (golden), tiled, tiled-tf32"
$B/bovw-bench --sizes 1048576x1024 --variants openmp,tiled,tiled-tf32 --warmup 3 --repetitions 10 --json $OUT/bench_d64.json > $OUT/bench_d64.txt 2>&1
grep -v "^\[" $OUT/bench_d64.txt | tail -8
$B/bovw-bench --sizes 1048576x4096 --variants openmp,tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_k4096.json > $OUT/bench_k4096.txt 2>&1
grep -v "^\[" $OUT/bench_k4096.txt | tail -4
$B/bovw-bench --dimension 128 --sizes 1048576x1024 --variants openmp,tiled,tiled-tf32 --warmup 1 --repetitions 5 --json $OUT/bench_d128.json > $OUT/bench_d128.txt 2>&1
grep -v "^\[" $OUT/bench_d128.txt | tail -4
echo "== PyTorch, same GPU"
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16,bf16 --json $OUT/pytorch_d64.json 2>&1 | tail -10
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d128.json 2>&1 | tail -4
echo "== real SURF descriptors"
mkdir -p /tmp/surf && $B/bovw extract .device/serve/jpegs --output /tmp/surf --format npy > /dev/null 2>&1
python3 -c "
import numpy as np, glob
x = np.concatenate([np.load(f) for f in sorted(glob.glob('/tmp/surf/*.npy'))]).astype(np.float32)
np.save('/tmp/surf.npy', x); print('SURF descriptors', x.shape)"
for v in tiled tiled-tf32; do for r in 1 2; do
  $B/bovw histogram --descriptors /tmp/surf.npy --vocabulary .device/serve/vocabulary.bovw --output /tmp/h_$v.npy --backend opencl --variant $v --profile 2>&1 | grep -iE "kernel|re-check" | tail -2; done; done
cmp /tmp/h_tiled.npy /tmp/h_tiled-tf32.npy && echo "histograms identical"
echo "== ncu (if it profiles OpenCL)"
timeout 120 ncu --kernel-name regex:tf32 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis $B/bovw-bench --sizes 1048576x1024 --variants tiled-tf32 --warmup 0 --repetitions 1 > $OUT/ncu.txt 2>&1; echo "ncu exit $?"
grep -E "Throughput|Occupancy|Stall|Registers|L1|L2|DRAM|Issue|Warp Cycles|Eligible" $OUT/ncu.txt | head -60
