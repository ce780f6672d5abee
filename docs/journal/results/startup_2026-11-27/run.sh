#!/usr/bin/env bash
# Issue 25: where a files-to-histograms process's time goes outside the pipeline (start-up, writing).
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
nvidia-smi --query-gpu=name --format=csv,noheader
B=.device/build/bovw
mkdir -p /tmp/one /tmp/set && cp .device/set/g000_v0.jpg /tmp/one/ && cp .device/set/*.jpg /tmp/set/
$B train /tmp/set --words 1000 --seed 1 --quiet --output /tmp/v.bovw > /dev/null 2>&1
ms() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
echo "bovw --version: $(ms $B --version) ms"
echo "bovw devices: $(ms $B devices) ms"
for i in 1 2 3 4 5; do echo "histogram of 1 image, default flags, run $i: $(ms $B histogram --images /tmp/one --vocabulary /tmp/v.bovw --quiet --output /tmp/h1.npy) ms"; done
for i in 1 2 3; do echo "histogram of 150 images, default flags, run $i: $(ms $B histogram --images /tmp/set --vocabulary /tmp/v.bovw --quiet --output /tmp/h150.npy) ms"; done
echo "histogram of 1 image, kernel cache off: $(BOVW_KERNEL_CACHE=off ms $B histogram --images /tmp/one --vocabulary /tmp/v.bovw --quiet --output /tmp/h1.npy) ms"
echo "histogram of 1 image, CPU path: $(ms $B histogram --images /tmp/one --vocabulary /tmp/v.bovw --quiet --surf-backend builtin --backend openmp-tiled --output /tmp/h1.npy) ms"
$B histogram --images /tmp/one --vocabulary /tmp/v.bovw --profile --output /tmp/h1.npy 2>&1 | grep -v "^\[" | tail -8
