#!/usr/bin/env bash
# NOT RUN: too little device time was left this session to start a machine (19:25); for the next one.
# Issue 22, 2026-12-07 (seventh session, about 19:22), written before the run: the runs pass with a
# run's bounds from the heads bitmap and its marks read 32 at a time (branch signature-scan-v2,
# 7bdc6c5, plus profile_v3.patch), the library's search on one thread, device side, 2 rounds; as
# run7.sh otherwise.
# Expected: run7 on an H100 gave pairSums 4.73 ms wall, marks 0.056 ms, runs 3.75 ms. The runs pass
# now reads a run of L features in L/32 loads instead of L, so at most 0.3 ms; the marks pass a little
# more (it reads the ids too: 31 MB more); pairSums about 1.2 ms wall; verify 0 mean about 3.7 ms
# against 7.19 on an H100 (on an H200 compare with nothing measured here).
set -u
source bench/device_common.sh
bovw_gpu_setup || exit 1
D=$PWD/.device
chmod +x $D/fast/bovw $D/cur/bench/serve/bovw_serving_database
export PATH=$D/bin:$PATH
W=/tmp/w; mkdir -p $W
source bench/serve/serve_common.sh
bovw_copy_samples $D/jpegs $W
$D/fast/bovw train $W/jpegs --words 16384 --seed 1 --output $W/vocabulary.bovw --quiet
$D/cur/bench/serve/bovw_serving_database --vocabulary $W/vocabulary.bovw --samples $W/jpegs --images 100000 \
  --keypoints --output $W/db | tail -1
BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_v3prof $W/db $W/jpegs 2 device $W/r3.txt
BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_v2prof $W/db $W/jpegs 1 device $W/r2.txt
cmp $W/r3.txt $W/r2.txt && echo "rankings: identical"
