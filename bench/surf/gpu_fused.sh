#!/usr/bin/env bash
# The fused images-to-histograms route on the GPU machine, in one run: the OpenCL SURF tests and the
# golden tests on the device, then files to histograms with SURF and histograms on the GPU, fused
# (--device-batch-pixels 16000000, the default until 2026-12-05) and image by image (0) alternated $BOVW_ROUNDS times
# (default 3), once with bovw's CPU path, `bovw index --keypoints` both ways, and --profile runs.
# Usage: bench/surf/gpu_fused.sh BUILD_DIR LIBS.tar.xz IMAGES_DIR SET_DIR [COPIES]
# (BUILD_DIR as for gpu_surf.sh; SET_DIR copied COPIES times, default 24)
set -uo pipefail
build=$1; libs=$2; images=$3; set=$4; copies=${5:-24}
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs "$libs" || exit 1
export BOVW_DEVICE=${BOVW_DEVICE:-NVIDIA} BOVW_OPENCV_DOC_DATA=${BOVW_OPENCV_DOC_DATA:-$PWD/$images}
export BOVW_SURF_TEST_DATA=${BOVW_SURF_TEST_DATA:-$PWD/tests/data/surf}
nvidia-smi --query-gpu=name --format=csv,noheader
"$build/tests/features/bovw_opencl_surf_tests" 2>&1 | grep -E "PASSED|FAILED" | tail -3
"$build/tests/features/bovw_features_tests" --gtest_filter='*SurfGolden*' 2>&1 | grep -E "PASSED|FAILED" | tail -2
bovw_copy_set "$set" "$copies" /tmp/set || exit 1
n=$(ls /tmp/set/*.jpg | wc -l)
"$build/bovw" train /tmp/set --words 1000 --seed 1 --quiet --backend opencl --device gpu --output /tmp/v.bovw
timed() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; local e=$(date +%s%N)
          awk -v a=$s -v b=$e -v n=$n 'BEGIN {printf "%.3f s, %.1f images/s", (b - a) / 1e9, n / ((b - a) / 1e9)}'; }
gpu=(--surf-backend opencl --backend opencl --variant local --device gpu)
for r in $(seq 1 "${BOVW_ROUNDS:-3}"); do
  for p in 16000000 0; do
    echo "histogram, $n images, device batch pixels $p, run $r: $(timed "$build/bovw" histogram --images /tmp/set \
      --vocabulary /tmp/v.bovw --quiet "${gpu[@]}" --device-batch-pixels "$p" --output "/tmp/h$p.npy")"
  done
done
echo "histogram, builtin SURF + OpenMP: $(timed "$build/bovw" histogram --images /tmp/set --vocabulary /tmp/v.bovw \
  --quiet --surf-backend builtin --backend openmp --output /tmp/hcpu.npy)"
cmp /tmp/h16000000.npy /tmp/h0.npy && cmp /tmp/h0.npy /tmp/hcpu.npy && echo "histograms identical (fused, image by image, CPU)"
for p in 16000000 0; do
  echo "index --keypoints, device batch pixels $p: $(timed "$build/bovw" index /tmp/set --vocabulary /tmp/v.bovw \
    --keypoints --quiet --surf-backend opencl --backend opencl --device gpu --device-batch-pixels "$p" \
    --output "/tmp/db$p.bovwdb")"
done
cmp /tmp/db16000000.bovwdb /tmp/db0.bovwdb && echo "databases identical"
for p in 16000000 4000000; do
  echo "--profile, device batch pixels $p:"
  "$build/bovw" histogram --images /tmp/set --vocabulary /tmp/v.bovw --quiet "${gpu[@]}" --device-batch-pixels "$p" \
    --profile --output /tmp/hp.npy 2>&1 | grep profile
done
"$build/bench/surf/bovw_surf_bench" --backend opencl --runs 20 --batch 8 "$images/graf1.png" | tail -1
