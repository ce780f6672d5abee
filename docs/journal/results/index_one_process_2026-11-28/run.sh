#!/usr/bin/env bash
# `bovw index --keypoints` and `bovw index` with default flags in one process on one GPU, before
# (52a83c0) and after this day's changes (the database streamed into its file, the images added
# on a thread of their own), alternating, three rounds, 9,600 800-px JPEGs (the 150-image set 64
# times); every database compared with the first one's of its kind.
set -uo pipefail
source bench/device_common.sh
bovw_use_libs .device/mpilibs.tar.xz || exit 1
bovw_opencl_env || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
work=/tmp/one; rm -rf $work; mkdir -p $work
bovw_copy_set .device/set 64 $work/set || exit 1
echo "images: $(ls $work/set | grep -c jpg), $(nproc) cores"
.device/mpi_final/bovw train .device/set --words 1000 --seed 1 --output $work/v.bovw --quiet || exit 1
for round in 1 2 3; do
  for side in base final; do
    for kind in keypoints plain; do
      extra=(); [ $kind = keypoints ] && extra=(--keypoints)
      start=$(date +%s.%N)
      .device/mpi_$side/bovw index $work/set --vocabulary $work/v.bovw "${extra[@]}" --quiet --output $work/$kind-$side-$round.bovwdb || echo "FAILED $side $kind"
      end=$(date +%s.%N)
      echo "round $round $side $kind: $(awk -v a=$start -v b=$end 'BEGIN {printf "%.3f s, %.1f images/s", b - a, 9600 / (b - a)}')"
      if [ -f $work/$kind-base-1.bovwdb ]; then
        cmp -s $work/$kind-base-1.bovwdb $work/$kind-$side-$round.bovwdb && echo "  same bytes as base round 1" || echo "  DIFFERENT from base round 1"
      fi
      [ "$side$round" = base1 ] || rm -f $work/$kind-$side-$round.bovwdb
    done
  done
done
rm -rf $work
