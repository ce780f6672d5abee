#!/usr/bin/env bash
# Issue 27 on four GPUs: bovw-mpi index R = 1 against R = 4 on 153,600 JPEGs (4x the two-GPU folder),
# then training R = 1 against R = 2 with its per-iteration lines; outputs compared byte for byte.
set -uo pipefail
nvidia-smi --query-gpu=name --format=csv,noheader
export BOVW_MODE=gpu
BOVW_RANKS=4 BOVW_SET_COPIES=1024 BOVW_ROUNDS=1 BOVW_SKIP_TRAIN=1 BOVW_COMPARE_SINGLE=0 BOVW_WORK=/tmp/w4 \
  bash bench/scaling/mpi_scaling.sh .device/mpi .device/mpi/libs.tar.xz .device/set $OUT/index4 > $OUT/index4.log 2>&1
echo "index4 exit $?"; grep -E "slowest rank|round 1:|identical|differ|FAILED" $OUT/index4.log | head -12; rm -rf /tmp/w4
BOVW_RANKS=2 BOVW_SET_COPIES=16 BOVW_SKIP_INDEX=1 BOVW_TRAIN_ROUNDS=2 BOVW_COMPARE_SINGLE=0 BOVW_WORK=/tmp/w5 \
  bash bench/scaling/mpi_scaling.sh .device/mpi .device/mpi/libs.tar.xz .device/set $OUT/train2 > $OUT/train2.log 2>&1
echo "train2 exit $?"; tail -22 $OUT/train2.log
