#!/usr/bin/env bash
# Vocabulary training on the GPU machine: the same k-means (same sample, seed, iterations) with the
# assignment step on OpenMP (all host cores) and on the GPU (OpenCL, each kernel variant named).
# Expects build-gpu/ and .device/ as bench/gpu_suite.sh does, and a float32 sample .npy.
# Usage: bench/retrieval/gpu_training.sh SAMPLE.npy OUTDIR [K...]
set -uo pipefail
sample=$1; out=$2; shift 2
words=("${@:-1000 4096}")
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
for k in ${words[@]}; do
  for run in "openmp baseline" "opencl constant" "opencl local"; do
    set -- $run
    log="$out/train_k${k}_$1_$2.log"
    start=$(date +%s%N)
    BOVW_DEVICE=gpu ./build-gpu/bovw train --descriptors "$sample" --descriptor-type surf64 --words "$k" \
      --iterations 10 --tolerance -1 --seed 1 --backend "$1" --variant "$2" --output "$out/v_k${k}_$1_$2.npy" > "$log" 2>&1
    end=$(date +%s%N)
    lloyd=$(grep -o ', [0-9.]* s$' "$log" | awk '{s += $2} END {printf "%.2f", s}')
    echo "K=$k $1/$2: total $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", (b - a) / 1e9}') s," \
         "10 Lloyd iterations $lloyd s, final inertia $(grep 'k-means iteration' "$log" | tail -1 | grep -o 'inertia [0-9.e+]*')," \
         "vocabulary md5 $(md5sum < "$out/v_k${k}_$1_$2.npy" | cut -c1-12)"
  done
done
