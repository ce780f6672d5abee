#!/usr/bin/env bash
# Issue 27, 2026-11-28: bovw-mpi index before (52a83c0), with the streamed database writer only
# (d6ccf44) and with the ranks' parts added beside the work (the final commit), R = 1 against R = 4
# on 153,600 JPEGs and R = 1 against R = 2 on 38,400, one lease of four GPUs; `$1` picks the half.
# The databases of every run are compared byte for byte with the first one's of the same size.
set -uo pipefail
export BOVW_MODE=gpu BOVW_PROFILE=1
run() {  # NAME BUILD RANKS COPIES
  BOVW_RANKS=$3 BOVW_SET_COPIES=$4 BOVW_ROUNDS=1 BOVW_SKIP_TRAIN=1 BOVW_COMPARE_SINGLE=0 BOVW_WORK=/tmp/w_$1 \
    bash bench/scaling/mpi_scaling.sh .device/$2 .device/mpilibs.tar.xz .device/set "$OUT/$1" > "$OUT/$1.log" 2>&1
  echo "$1 exit $?"; grep -E "index_R.*s, exit|slowest rank|identical|differ|FAILED" "$OUT/$1.log" | head -8
}
same() { cmp -s "$1" "$2" && echo "same bytes: $1 $2" || echo "DIFFERENT: $1 $2"; }
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "$1" = four ]; then
  run r4_base mpi_base 4 1024
  run r4_final mpi_final 4 1024
  same /tmp/w_r4_base/index_R1_1.bovwdb /tmp/w_r4_final/index_R4_1.bovwdb
  rm -rf /tmp/w_r4_*
else
  run r4_write mpi_write 4 1024
  rm -rf /tmp/w_r4_*
  run r2_base mpi_base 2 256
  run r2_final mpi_final 2 256
  same /tmp/w_r2_base/index_R1_1.bovwdb /tmp/w_r2_final/index_R2_1.bovwdb
  rm -rf /tmp/w_r2_*
fi
