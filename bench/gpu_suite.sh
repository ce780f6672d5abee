#!/usr/bin/env bash
# The GPU measurements of docs/PERFORMANCE.md, in one run on the GPU machine. Expects, in the
# project root there: build-gpu/ (built here with -DBOVW_WITH_OPENCV=OFF) and .device/ (opencl-env.sh
# and libs.tar.xz from bundle-libs.sh; see ../shared/device/README.md).
# Usage: bench/gpu_suite.sh OUTDIR
# Writes OUTDIR/results.tgz (every table and JSON) and prints the summary tables.
set -uo pipefail
out=${1:?usage: gpu_suite.sh OUTDIR}
work=$(mktemp -d)
export PATH=$PATH:/usr/local/cuda/bin
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
bovw=./build-gpu/bovw
bovw_bench=./build-gpu/bovw-bench
grid=4096x8,4096x16,4096x64,4096x128,4096x256,16384x8,16384x16,16384x64,16384x128,16384x256
grid=$grid,65536x8,65536x16,65536x64,65536x128,65536x256,1048576x1024

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$work/gpu.txt"
nproc | tee -a "$work/gpu.txt"
$bovw devices > "$work/devices.txt" 2>&1

# Tile shapes first: the grid below then runs with the device defaults, and the tuning shows what
# the defaults leave behind.
$bovw_bench --tune 1048576x1024 --json "$work/tune_d64.json" --save-tuning "$work/tuning.json" \
  > "$work/tune_d64.txt" 2>&1
tail -18 "$work/tune_d64.txt"
$bovw_bench --tune 1048576x4096 --warmup 1 --repetitions 5 --json "$work/tune_k4096.json" > "$work/tune_k4096.txt" 2>&1
tail -17 "$work/tune_k4096.txt"
$bovw_bench --tune 1048576x1024 --dimension 128 --warmup 1 --repetitions 5 --json "$work/tune_d128.json" \
  > "$work/tune_d128.txt" 2>&1
tail -17 "$work/tune_d128.txt"

# Every variant on the chapter's grid and 1M x 1,024 (D = 64), then the two large cases. The
# compiled kernels (PTX) are kept, and ptxas reports their registers and spills.
mkdir -p "$work/kernels"
BOVW_KERNEL_BINARIES="$work/kernels" $bovw_bench --sizes "$grid" --json "$work/bench_grid.json" \
  > "$work/bench_grid.txt" 2>&1
for ptx in "$work"/kernels/*.bin; do
  echo "== $(basename "$ptx"): $(cat "$ptx.options")"
  ptxas -arch=sm_90 -v -o /dev/null "$ptx" 2>&1 | grep -E "registers|spill|bytes stack" || echo "(ptxas not available)"
done > "$work/ptxas.txt" 2>&1
grep -A3 "tiled" "$work/ptxas.txt" | head -12
grep -v "^\[" "$work/bench_grid.txt" | tail -120 | grep -E "variant|1048576|65536 +256|Measured"
$bovw_bench --sizes 1048576x4096 --variants openmp,openmp-tiled,local,tiled --warmup 1 --repetitions 5 \
  --json "$work/bench_k4096.json" > "$work/bench_k4096.txt" 2>&1
grep -v "^\[" "$work/bench_k4096.txt" | tail -5
$bovw_bench --dimension 128 --sizes 1048576x1024 --variants openmp,openmp-tiled,local,tiled --warmup 1 --repetitions 5 \
  --json "$work/bench_d128.json" > "$work/bench_d128.txt" 2>&1
grep -v "^\[" "$work/bench_d128.txt" | tail -5

# The PyTorch peer on the same GPU, same sizes.
python3 bench/pytorch_peer.py --sizes "$grid,1048576x4096" --json "$work/pytorch_d64.json" > "$work/pytorch_d64.txt" 2>&1
tail -20 "$work/pytorch_d64.txt"
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --json "$work/pytorch_d128.json" \
  > "$work/pytorch_d128.txt" 2>&1
tail -3 "$work/pytorch_d128.txt"

# Transfers: 16,777,216 x 64 descriptors (4 GiB) through `bovw histogram`, K = 1,024; three runs
# (the first compiles), then one with a single chunk (no overlap) for contrast. The pinned-copy
# ceiling of the same bus is in bench_grid.txt's header.
python3 -c "
import numpy as np
rng = np.random.default_rng(1)
np.save('/tmp/x16m.npy', rng.random((16777216, 64), dtype=np.float32))
np.save('/tmp/c1024.npy', rng.random((1024, 64), dtype=np.float32))
" > "$work/transfers.txt" 2>&1
for run in 1 2 3; do
  $bovw histogram --descriptors /tmp/x16m.npy --vocabulary /tmp/c1024.npy --output /tmp/h16m.npy --backend opencl
done >> "$work/transfers.txt" 2>&1
$bovw histogram --descriptors /tmp/x16m.npy --vocabulary /tmp/c1024.npy --output /tmp/h16m.npy --backend opencl \
  --transfer-rows 16777216 >> "$work/transfers.txt" 2>&1
grep -E "call|Error|error" "$work/transfers.txt"
grep -E "Measured ceilings|first in the process" "$work/bench_grid.txt"

# The golden suites on the GPU (every variant, the tiled exactness tests included).
if [ -x build-gpu/tests/bovw_core_tests ]; then
  timeout 300 ./build-gpu/tests/bovw_core_tests --gtest_brief=1 > "$work/tests_gpu.txt" 2>&1
  echo "core tests exit $?"; tail -15 "$work/tests_gpu.txt"
fi
tar -C "$work" -czf "$out/results.tgz" .
