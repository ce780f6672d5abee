#!/usr/bin/env bash
# Vocabulary training on the GPU machine: the same k-means (same sample, seed and iterations, no early
# stop) with the passes on OpenMP (all host cores) and on the GPU (OpenCL, the tiled variant: sample
# resident, seeding on the device). Prints, for each: total wall time, k-means++ seeding time, the sum
# of the Lloyd iterations, the final inertia and the vocabulary's md5; then whether every iteration's
# inertia is identical between the two (it must be: docs/PERFORMANCE.md).
# Expects build-gpu/ and .device/ as bench/gpu_suite.sh does, and a float32 sample .npy.
# Usage: bench/retrieval/gpu_training.sh SAMPLE.npy OUTDIR [K] [ITERATIONS]
set -uo pipefail
sample=$1; out=$2; words=${3:-4096}; iterations=${4:-20}
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
for backend in openmp opencl; do
  log="$out/train_k${words}_$backend.log"
  start=$(date +%s%N)
  BOVW_DEVICE=NVIDIA ./build-gpu/bovw train --descriptors "$sample" --words "$words" --iterations "$iterations" \
    --tolerance -1 --seed 1 --backend "$backend" --variant tiled --output "$out/v_k${words}_$backend.npy" > "$log" 2>&1
  end=$(date +%s%N)
  lloyd=$(grep -o ', [0-9.]* s$' "$log" | awk '{s += $2} END {printf "%.2f", s}')
  echo "K=$words $backend: total $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", (b - a) / 1e9}') s," \
       "seeding $(grep -o 'seeding [0-9.]* s' "$log" | awk '{print $2}') s, $iterations Lloyd iterations $lloyd s," \
       "final $(grep 'k-means iteration' "$log" | tail -1 | grep -o 'inertia [0-9.e+]*')," \
       "vocabulary md5 $(md5sum < "$out/v_k${words}_$backend.npy" | cut -c1-12)"
  grep -o 'k-means on .*;' "$log"
  grep -o 'iteration [0-9]*: inertia [0-9.e+]*' "$log" > "$out/inertia_$backend.txt"
done
if cmp -s "$out/inertia_openmp.txt" "$out/inertia_opencl.txt"; then
  echo "every iteration's inertia identical ($(wc -l < "$out/inertia_openmp.txt") iterations)"
else
  echo "inertia differs:"; diff "$out/inertia_openmp.txt" "$out/inertia_opencl.txt" | head
fi
