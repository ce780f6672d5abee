#!/usr/bin/env bash
# The exhaustive query's scaling over threads at 1,000,000 synthetic images (issue 21), on the GPU host's CPU.
set -u
export LD_LIBRARY_PATH=$PWD/.device/scale
lscpu | grep -E "Model name|^CPU\(s\)|Thread|L2|L3" > $OUT/lscpu.txt
nproc
.device/scale/qscale 1000000 200 /tmp/idx1m.bovwidx 1 2 4 8 16 2>&1 | tee $OUT/qscale_1m.txt
