#!/usr/bin/env bash
# Files-to-histograms throughput on the GPU machine: bovw with SURF on the host cores (builtin) or on
# the GPU (opencl), histograms by OpenMP or on the GPU, against the OpenCV BOW baseline, on a
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
for repeat in $(seq 1 "${BOVW_ROUNDS:-3}"); do
  for run in "builtin openmp baseline" "builtin opencl local" "opencl opencl local"; do
    set -- $run
    t=$(seconds "$bin/bovw" histogram --images "$set" --vocabulary "$out/v.bovw" --quiet --surf-backend "$1" \
        --backend "$2" --variant "$3" --device gpu --output "$out/h-$1-$2.npy")
    echo "bovw histogram --images, SURF $1, histograms $2/$3, run $repeat: $t s, $(awk -v n=$images -v t=$t 'BEGIN {printf "%.1f", n / t}') images/s"
  done
done
cmp "$out/h-builtin-openmp.npy" "$out/h-opencl-opencl.npy" && echo "histograms of GPU SURF + GPU assignment identical to the CPU path's"
"$bin/bench/retrieval/opencv_bow_baseline" "$set" "$set/GROUPS.csv" --words "$k" --seed 1 > "$out/opencv_bow.json" 2>>"$out/stderr.txt"
echo "OpenCV BOW baseline: $(tr -d '\n' < "$out/opencv_bow.json")"
