#!/usr/bin/env bash
# Retrieval quality with GPU SURF against CPU SURF on the GPU machine: one vocabulary, then the same
# UKBench-style folder indexed with each SURF backend (and the GPU's fused route), the databases
# compared byte for byte and each evaluated (N-S score, mAP). The binaries are Debian 12 builds carried with their libraries.
# Usage: bench/surf/gpu_ns.sh BUILD_DIR LIBS.tar.xz SET_DIR OUT_DIR [K]
set -uo pipefail
build=$1; libs=$2; set=$3; out=$4; k=${5:-1000}
source .device/opencl-env.sh
tar xJf "$libs" -C /tmp && export LD_LIBRARY_PATH=/tmp/$(basename "$libs" .tar.xz)
export BOVW_DEVICE=${BOVW_DEVICE:-NVIDIA}
mkdir -p "$out"
nvidia-smi --query-gpu=name --format=csv,noheader
"$build/bovw" train "$set" --words "$k" --seed 1 --quiet --surf-backend builtin --output "$out/v.bovw"
# SURF on the CPU, on the GPU with histograms on the CPU, and the fused route (SURF and histograms on the GPU).
runs=("builtin --backend openmp" "opencl --backend openmp" "opencl --backend opencl --device gpu")
names=(builtin opencl fused)
for i in 0 1 2; do
  set -- ${runs[$i]}
  b=${names[$i]}
  start=$(date +%s%N)
  "$build/bovw" index "$set" --vocabulary "$out/v.bovw" --surf-backend "$@" --quiet --output "$out/db-$b.bovwdb"
  echo "index with SURF ${runs[$i]}: $(( ($(date +%s%N) - start) / 1000000 )) ms"
  "$build/bovw" evaluate --index "$out/db-$b.bovwdb" --groups "$set/GROUPS.csv" --quiet --json "$out/eval-$b.json"
  echo "$b: $(tr -d '\n' < "$out/eval-$b.json")"
done
cmp "$out/db-builtin.bovwdb" "$out/db-opencl.bovwdb" && cmp "$out/db-builtin.bovwdb" "$out/db-fused.bovwdb" &&
  echo "the three databases are identical byte for byte"
