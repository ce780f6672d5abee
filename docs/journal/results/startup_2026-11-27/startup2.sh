#!/usr/bin/env bash
# Issue 25: where a one-shot search's start-up goes.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/serve-libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/serve-libs
B=$PWD/.device/bin/bovw
cd .device/eval
command -v strace perf ltrace
$B index ukb-7 --vocabulary V-ukb-7.bovw --quiet --output /tmp/db7.bovwdb > /dev/null || exit 1
q=ukb-7/g000_v0.jpg
t() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
mkdir -p /tmp/nv-only && echo libnvidia-opencl.so.1 > /tmp/nv-only/nvidia.icd
echo "round devices devices-nvidia-only search-gpu search-gpu-nvidia-only search-cpu-device-cpu"
for i in 1 2 3 4 5; do
  echo "$i $(t $B devices) $(OCL_ICD_VENDORS=/tmp/nv-only t $B devices) $(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet) \
$(OCL_ICD_VENDORS=/tmp/nv-only t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet) \
$(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet --backend openmp-tiled --device cpu)"
done
if command -v strace > /dev/null; then
  strace -f -r -e trace=openat,execve,exit_group -o /tmp/st.txt $B search $q --index /tmp/db7.bovwdb --top 5 --quiet > /dev/null
  awk '$2+0 > 0.005' /tmp/st.txt | head -60
  grep -E "nvidia|pocl|bovw/kernels|\.jpg|db7|V-ukb" /tmp/st.txt | head -30
  cp /tmp/st.txt $OUT/
fi
