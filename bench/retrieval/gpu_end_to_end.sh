#!/usr/bin/env bash
# Files-to-histograms throughput on the GPU machine: bovw with SURF on the host cores (builtin) or on
# the GPU (opencl: the fused device route, and image by image), histograms by OpenMP or on the GPU,
# against the OpenCV BOW baseline, on a
# UKBench-style folder, alternating the configurations $BOVW_ROUNDS times (default 3). The binaries are the Debian 12 builds
# with OpenCV, carried with their libraries (bundle-libs.sh OUT bovw opencv_bow_baseline).
# Usage: bench/retrieval/gpu_end_to_end.sh BUILD_DIR LIBS.tar.xz SET_DIR OUT_DIR [K]
# (BUILD_DIR: bovw at its top, opencv_bow_baseline under bench/retrieval)
set -uo pipefail
bin=$1; libs=$2; set=$3; out=$4; k=${5:-1000}
source .device/opencl-env.sh
tar xJf "$libs" -C /tmp && export LD_LIBRARY_PATH=/tmp/$(basename "$libs" .tar.xz)
seconds() { local s=$(date +%s%N); "$@" > /dev/null 2>>"$out/stderr.txt"; local e=$(date +%s%N); awk -v a=$s -v b=$e 'BEGIN {printf "%.3f", (b - a) / 1e9}'; }
images=$(ls "$set"/*.jpg | wc -l)
echo "host: $(nproc) cores; $images images; K = $k"
echo "bovw train (GPU assignment): $(seconds "$bin/bovw" train "$set" --words "$k" --seed 1 --quiet --backend opencl --variant local --device gpu --output "$out/v.bovw") s"
# The last two: SURF and histograms both on the GPU, fused (device batches of 16 Mpx, descriptors
# straight to the histogram kernel: the default) and image by image (--device-batch-pixels 0).
for repeat in $(seq 1 "${BOVW_ROUNDS:-3}"); do
  for run in "builtin openmp baseline 0" "builtin opencl local 0" "opencl opencl local 16000000" \
             "opencl opencl local 0"; do
    set -- $run
    t=$(seconds "$bin/bovw" histogram --images "$set" --vocabulary "$out/v.bovw" --quiet --surf-backend "$1" \
        --backend "$2" --variant "$3" --device gpu --device-batch-pixels "$4" --output "$out/h-$1-$2-$4.npy")
    echo "bovw histogram --images, SURF $1, histograms $2/$3, device batch pixels $4, run $repeat: $t s, $(awk -v n=$images -v t=$t 'BEGIN {printf "%.1f", n / t}') images/s"
  done
done
for h in "$out/h-opencl-opencl-16000000.npy" "$out/h-opencl-opencl-0.npy"; do
  cmp "$out/h-builtin-openmp-0.npy" "$h" && echo "$(basename "$h"): identical to the CPU path's histograms"
done
echo "== where the time goes (fused route, one more run with --profile)"
"$bin/bovw" histogram --images "$set" --vocabulary "$out/v.bovw" --quiet --surf-backend opencl --backend opencl \
  --variant local --device gpu --profile --output "$out/h-profile.npy" 2>&1 | grep profile
nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader -l 1 > "$out/gpu_util.txt" 2>/dev/null &
util=$!
"$bin/bovw" histogram --images "$set" --vocabulary "$out/v.bovw" --quiet --surf-backend opencl --backend opencl \
  --variant local --device gpu --output "$out/h-util.npy" 2>/dev/null
kill $util 2>/dev/null
echo "nvidia-smi utilization during a fused run (1 s samples): $(tr -d ' %' < "$out/gpu_util.txt" | tr '\n' ' ')"
"$bin/bench/retrieval/opencv_bow_baseline" "$set" "$set/GROUPS.csv" --words "$k" --seed 1 > "$out/opencv_bow.json" 2>>"$out/stderr.txt"
echo "OpenCV BOW baseline: $(tr -d '\n' < "$out/opencv_bow.json")"
