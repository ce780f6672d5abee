#!/usr/bin/env bash
# Issue 27, 2026-11-28: bovw-mpi index before (52a83c0) and after (the final commit), R = 1 against
# R = 4 on 153,600 JPEGs and R = 1 against R = 2 on 38,400, in one lease of four GPUs. Both builds
# index in the same folder (the databases hold the paths), and every database is compared byte for
# byte: R = 1 against R = R within a build (the script), and the two builds' R = 1 databases.
# (The first call of the day, `run.sh four` of an earlier version, ran the first pair in separate
# folders: results/mpi_parts_2026-11-28/first_call.txt.)
set -uo pipefail
export BOVW_MODE=gpu BOVW_PROFILE=1
run() {  # NAME BUILD RANKS COPIES
  BOVW_RANKS=$3 BOVW_SET_COPIES=$4 BOVW_ROUNDS=1 BOVW_SKIP_TRAIN=1 BOVW_COMPARE_SINGLE=0 BOVW_WORK=/tmp/w_r$3 \
    bash bench/scaling/mpi_scaling.sh .device/$2 .device/mpilibs.tar.xz .device/set "$OUT/$1" > "$OUT/$1.log" 2>&1
  echo "$1 exit $?"; grep -E "index_R.*s, exit|slowest rank|identical|differ|FAILED" "$OUT/$1.log" | head -8
  grep -h "profile:" "$OUT/$1"/index_R*_round1.profile.txt 2>/dev/null | grep -E "profile: +([0-9]+|max) " | head -12
  rm -rf "$OUT/$1"/*.gpu.csv
}
same() { cmp -s "$1" "$2" && echo "same bytes: $1 $2" || echo "DIFFERENT: $1 $2"; }
nvidia-smi --query-gpu=name --format=csv,noheader
ompi_info 2>/dev/null | grep -i "thread support"
for ranks in ${RANKS:-4 2}; do  # RANKS=2 on a two-GPU machine
  copies=$((ranks == 4 ? 1024 : 256))
  run r${ranks}_base mpi_base $ranks $copies
  mv /tmp/w_r$ranks/index_R1_1.bovwdb /tmp/base_R1.bovwdb
  run r${ranks}_final mpi_final $ranks $copies
  same /tmp/base_R1.bovwdb /tmp/w_r$ranks/index_R1_1.bovwdb
  rm -rf /tmp/w_r$ranks /tmp/base_R1.bovwdb
done
