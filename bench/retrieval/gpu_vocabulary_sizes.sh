#!/usr/bin/env bash
# Retrieval quality and cost over vocabulary sizes on the GPU machine: for each UKBench-style set and
# each K, flat k-means trained on the GPU (sample resident, tiled kernel), the set indexed with keypoints
# (SURF and histograms on the GPU), evaluated plain and with the top 50 verified; every step timed. Then
# the assignment kernels at the largest K: the GPU's tiled kernel against the exact OpenMP path on all
# cores (bovw-bench). The binaries are Debian 12 builds carried with their libraries (.device/).
# Usage: bench/retrieval/gpu_vocabulary_sizes.sh BUILD_DIR LIBS OUT_DIR SET_DIR... [-- K...]
#        (LIBS: the .tar.xz of .device/bundle-libs.sh, or the folder a previous run unpacked it into)
set -uo pipefail
build=$1; libs=$2; out=$3; shift 3
sets=(); while [ $# -gt 0 ] && [ "$1" != "--" ]; do sets+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(1000 4096 16384 65536); fi
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs "$libs" || exit 1
export BOVW_DEVICE=${BOVW_DEVICE:-NVIDIA}
mkdir -p "$out"
nvidia-smi --query-gpu=name --format=csv,noheader
nproc
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
for set in "${sets[@]}"; do
  name=$(basename "$set")
  for k in "${sizes[@]}"; do
    tag="$name-K$k"
    start=$(date +%s%N)
    "$build/bovw" train "$set" --words "$k" --max-descriptors 200000 --seed 1 --backend opencl --quiet \
      --output "$out/$tag.bovw" > "$out/$tag.train.txt" 2>&1 || { echo "$tag: train failed"; cat "$out/$tag.train.txt"; continue; }
    train_ms=$(ms "$start")
    start=$(date +%s%N)
    "$build/bovw" index "$set" --vocabulary "$out/$tag.bovw" --keypoints --backend opencl --quiet \
      --output "$out/$tag.bovwdb" > "$out/$tag.index.txt" 2>&1 || { echo "$tag: index failed"; cat "$out/$tag.index.txt"; continue; }
    index_ms=$(ms "$start")
    "$build/bovw" evaluate --index "$out/$tag.bovwdb" --groups "$set/GROUPS.csv" --scoring intersection --verify 50 \
      --quiet --json "$out/$tag.json" > "$out/$tag.evaluate.txt" 2>&1 || { echo "$tag: evaluate failed"; cat "$out/$tag.evaluate.txt"; }
    echo "$tag: train ${train_ms} ms, index ${index_ms} ms ($(tail -1 "$out/$tag.index.txt"))"
    sed -n '3,4p' "$out/$tag.evaluate.txt"
  done
done
k=${sizes[-1]}
"$build/bovw-bench" --sizes "180000x$k" --variants tiled openmp-tiled --repetitions 5 --warmup 1 --max-seconds 120 \
  --json "$out/bench-K$k.json" 2>&1 | tail -12
