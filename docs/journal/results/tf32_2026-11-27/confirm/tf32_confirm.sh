#!/usr/bin/env bash
# tiled-tf32's new default (staged words, rows kept at large D) against yesterday's binary, tiled
# and PyTorch in one run. Needs LD_LIBRARY_PATH and the OpenCL registration (run7.sh sets them).
set -uo pipefail
B=.device/bin
for d in 64 128; do
  sizes=1048576x1024,1048576x4096,180000x65536; [[ $d == 128 ]] && sizes=1048576x1024
  $B/bovw-bench --dimension $d --sizes $sizes --variants tiled,tiled-tf32 --warmup 2 --repetitions 7 \
    --json $OUT/tf32_d$d.json > $OUT/tf32_d$d.txt 2>&1; grep -E "^tiled" $OUT/tf32_d$d.txt
  $B/bovw-bench-before --dimension $d --sizes $sizes --variants tiled-tf32 --warmup 2 --repetitions 7 \
    --json $OUT/tf32_before_d$d.json > $OUT/tf32_before_d$d.txt 2>&1; grep -E "^tiled" $OUT/tf32_before_d$d.txt | sed 's/^/before: /'
done
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d64.json 2>&1 | tail -7
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d128.json 2>&1 | tail -4
