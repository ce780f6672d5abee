#!/bin/bash
# The one-shot search with default flags after `auto` keeps a few queries on the CPU (H200 host).
set -u
D=.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
export BOVW_CACHE_DIR=/tmp/bovw-cache
for b in base new; do $D/bin/bovw-$b search --quiet --index $D/q/index.bovwdb $D/q/graf1.png > /dev/null; done
echo "== search_startup, default flags"
python3 bench/startup/search_startup.py --index $D/q/index.bovwdb --query $D/q/graf1.png --bovw base=$D/bin/bovw-base --bovw new=$D/bin/bovw-new --repeats 7 --pocl-cache on
echo "== search_startup, --backend opencl (the GPU forced)"
python3 bench/startup/search_startup.py --index $D/q/index.bovwdb --query $D/q/graf1.png --bovw base=$D/bin/bovw-base --bovw new=$D/bin/bovw-new --repeats 5 --pocl-cache on --args "--backend opencl"
for r in 1 2; do $D/bin/bovw-new search --quiet --profile --index $D/q/index.bovwdb $D/q/graf1.png 2>&1 >/dev/null | tail -1; done
