#!/usr/bin/env bash
# Issue 25: a one-shot search with and without OpenCL.
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/serve-libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/serve-libs
B=$PWD/.device/bin/bovw
cd .device/eval
$B index ukb-7 --vocabulary V-ukb-7.bovw --quiet --output /tmp/db7.bovwdb > /dev/null || exit 1
q=ukb-7/g000_v0.jpg
t() { local s=$(date +%s%N); "$@" > /dev/null 2>&1; echo $(( ($(date +%s%N) - s) / 1000000 )); }
mkdir -p /tmp/no-icd
echo "round gpu cpu-backends cpu-backends-no-icd"
for i in 1 2 3 4 5; do
  echo "$i $(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet) \
$(t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet --backend openmp-tiled) \
$(OCL_ICD_VENDORS=/tmp/no-icd t $B search $q --index /tmp/db7.bovwdb --top 5 --quiet --backend openmp-tiled)"
done
LD_DEBUG=statistics $B --help 2>&1 > /dev/null | grep -E "total startup time|time needed" | head -5
OCL_ICD_VENDORS=/tmp/no-icd $B search $q --index /tmp/db7.bovwdb --top 3 --backend openmp-tiled
