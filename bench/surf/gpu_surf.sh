#!/usr/bin/env bash
# SURF on the GPU machine, in one run: the OpenCL backend's fidelity tests on the device, per-image
# stage times of the OpenCL and builtin backends (builtin on 1 and on all host cores), throughput with
# several images in flight, then files-to-histograms (bench/retrieval/gpu_end_to_end.sh).
# The binaries are Debian 12 builds with OpenCV, carried with their libraries
# (bundle-libs.sh OUT bovw bovw_surf_bench bovw_opencl_surf_tests bovw_features_tests opencv_bow_baseline).
# Usage: bench/surf/gpu_surf.sh BUILD_DIR LIBS.tar.xz IMAGES_DIR SET_DIR OUT_DIR
# (BOVW_SET_COPIES: how many copies of SET_DIR the files-to-histograms part reads, default 4;
#  BOVW_ONLY_FILES=1: that part alone; BOVW_SMALL_IMAGE: an image to time one at a time, in streams and in
#  batches, e.g. graf1 reduced to 320 x 256)
set -uo pipefail
build=$1; libs=$2; images=$3; set=$4; out=$5
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs "$libs" || exit 1
export BOVW_DEVICE=${BOVW_DEVICE:-NVIDIA}
# The test programs were built elsewhere: their data from this working tree (and the opencv-doc
# images from wherever the caller put them: BOVW_OPENCV_DOC_DATA).
export BOVW_SURF_TEST_DATA=${BOVW_SURF_TEST_DATA:-$PWD/tests/data/surf}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

if [ "${BOVW_ONLY_FILES:-0}" != 1 ]; then
echo "== fidelity on the device"
"$build/tests/features/bovw_opencl_surf_tests" > "$out/opencl_surf_tests.txt" 2>&1
grep -E "identical|PASSED|FAILED" "$out/opencl_surf_tests.txt" | tail -25
"$build/tests/features/bovw_features_tests" --gtest_filter='*SurfGolden*' 2>&1 | grep -E "PASSED|FAILED"

echo "== per image"
bench="$build/bench/surf/bovw_surf_bench"
"$bench" --backend opencl --runs 21 "$images"
"$bench" --backend builtin --threads 1 --runs 3 "$images"
"$bench" --backend builtin --threads "$(nproc)" --runs 7 "$images"
echo "== throughput (graf1, then all images)"
for s in 1 4 16; do "$bench" --backend opencl --runs 20 --streams "$s" "$images/graf1.png" | tail -1; done
echo "== batches (one launch sequence per batch; graf1, then all images)"
for b in 1 8 32 64; do "$bench" --backend opencl --runs 20 --batch "$b" "$images/graf1.png" | tail -1; done
"$bench" --backend opencl --runs 20 --batch 64 "$images" | tail -1
small=${BOVW_SMALL_IMAGE:-}
if [ -n "$small" ]; then
  echo "== a small image ($small): one at a time, 16 streams, batches of 128"
  "$bench" --backend opencl --runs 20 "$small" | tail -1
  "$bench" --backend opencl --runs 20 --streams 16 "$small" | tail -1
  "$bench" --backend opencl --runs 20 --batch 128 "$small" | tail -1
fi
"$bench" --backend opencl --runs 20 --streams 16 "$images" | tail -1
"$bench" --backend builtin --runs 16 --streams "$(nproc)" --threads 1 "$images" | tail -1

echo "== a 6000 x 4000 image (smoothed noise, generated here)"
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(3)
a = rng.random((4000, 6000))
for _ in range(3):  # box blur by cumulative sums: structure at several scales
    c = np.cumsum(np.cumsum(np.pad(a, ((4, 4), (4, 4)), mode="edge"), 0), 1)
    a = (c[8:, 8:] - c[:-8, 8:] - c[8:, :-8] + c[:-8, :-8]) / 64
a = ((a - a.min()) / (a.max() - a.min()) * 255).astype(np.uint8)
open("/tmp/big6000x4000.pgm", "wb").write(b"P5 6000 4000 255\n" + a.tobytes())
PY
"$bench" --backend opencl --runs 3 /tmp/big6000x4000.pgm
"$bench" --backend builtin --runs 1 /tmp/big6000x4000.pgm
for b in opencl builtin; do "$build/bovw" extract /tmp/big6000x4000.pgm -o "/tmp/big-$b.npy" --surf-backend "$b"; done
cmp /tmp/big-opencl.npy /tmp/big-builtin.npy && echo "6000 x 4000: OpenCL descriptors identical to the builtin's"

fi
copies=${BOVW_SET_COPIES:-4}
echo "== files to histograms (the set copied $copies times, so that start-up does not dominate)"
big=/tmp/set_x$copies
bovw_copy_set "$set" "$copies" "$big"
bench/retrieval/gpu_end_to_end.sh "$build" "$libs" "$big" "$out" 1000
