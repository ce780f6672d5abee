#!/usr/bin/env bash
# Issue 25: a one-shot `bovw search` of one image, process start to exit, on the GPU and the CPU.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/serve-libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/serve-libs
B=$PWD/.device/bin/bovw
cd .device/eval
nvidia-smi --query-gpu=name --format=csv,noheader; nproc
$B index ukb-7 --vocabulary V-ukb-7.bovw --quiet --output /tmp/db7.bovwdb > /dev/null || exit 1
ls -la /tmp/db7.bovwdb V-ukb-7.bovw
q=ukb-7/g000_v0.jpg
t() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
echo "round help devices search-gpu search-cpu search-gpu-cache-off histogram-gpu"
for i in 1 2 3 4 5 6 7; do
  echo "$i $(t $B --help) $(t $B devices) $(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet) \
$(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet --backend openmp-tiled) \
$(BOVW_KERNEL_CACHE=off t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet) \
$(t $B histogram --images $q --vocabulary V-ukb-7.bovw --output /tmp/h.npy --quiet)"
done
$B search $q --index /tmp/db7.bovwdb --top 3
