#!/bin/bash
# Evening 2026-11-27: a one-shot search's start-up on the GPU host (with --profile), and Hamming scoring
# before/after on the host's CPU. Run from the project root.
set -u
D=.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep "Model name"; grep -o -m1 "avx512_vpopcntdq" /proc/cpuinfo || echo "no avx512_vpopcntdq"; nproc
$D/bin/bovw-new devices 2>&1 | tail -1
export BOVW_CACHE_DIR=/tmp/bovw-cache
for b in base new; do $D/bin/bovw-$b search --quiet --index $D/q/index.bovwdb $D/q/graf1.png > /dev/null; done  # fills caches
echo "== search_startup, default flags"
python3 bench/startup/search_startup.py --index $D/q/index.bovwdb --query $D/q/graf1.png --bovw base=$D/bin/bovw-base --bovw new=$D/bin/bovw-new --repeats 7 --pocl-cache on
echo "== search_startup, --backend openmp-tiled"
python3 bench/startup/search_startup.py --index $D/q/index.bovwdb --query $D/q/graf1.png --bovw base=$D/bin/bovw-base --bovw new=$D/bin/bovw-new --repeats 7 --pocl-cache on --args "--backend openmp-tiled"
echo "== profiles (new): default x4, --backend openmp-tiled x3"
for r in 1 2 3 4; do $D/bin/bovw-new search --quiet --profile --index $D/q/index.bovwdb $D/q/graf1.png 2>&1 >/dev/null | tail -1; done
for r in 1 2 3; do $D/bin/bovw-new search --quiet --profile --backend openmp-tiled --index $D/q/index.bovwdb $D/q/graf1.png 2>&1 >/dev/null | tail -1; done
echo "== hamming bench, alternating"
#for r in 1 2; do for b in base new; do echo "-- round $r $b"; timeout 100 $D/bin/ham-$b --images 10000,30000 --words 16384 --queries 100 | grep -v "^$"; done; done
