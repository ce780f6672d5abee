#!/bin/bash
# Where a single image's 3 ms of nearest words go: tiled-tf32 (auto on NVIDIA) against tiled, batches of 1 and 16.
set -u
for v in tiled-tf32 tiled; do
  echo "== variant $v"
  bash .device/feature_batches.sh --variant $v --threads 1,16 --batches 1,16 --seconds 3
done
