#!/usr/bin/env bash
# Issue 27 on two GPUs: bovw-mpi index R = 1 against R = 2 (alternating), with --profile, on 9,600
# and 38,400 JPEGs of ~800 x 500, then training; databases compared byte for byte.
set -uo pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
export BOVW_MODE=gpu
BOVW_SET_COPIES=64 BOVW_ROUNDS=2 BOVW_SKIP_TRAIN=1 BOVW_COMPARE_SINGLE=1 BOVW_WORK=/tmp/w1 \
  bash bench/scaling/mpi_scaling.sh .device/mpi .device/mpi/libs.tar.xz .device/set $OUT/small > $OUT/small.log 2>&1
echo "small exit $?"; tail -25 $OUT/small.log
BOVW_SET_COPIES=256 BOVW_ROUNDS=2 BOVW_TRAIN_ROUNDS=2 BOVW_COMPARE_SINGLE=1 BOVW_WORK=/tmp/w2 \
  bash bench/scaling/mpi_scaling.sh .device/mpi .device/mpi/libs.tar.xz .device/set $OUT/large > $OUT/large.log 2>&1
echo "large exit $?"; tail -40 $OUT/large.log
