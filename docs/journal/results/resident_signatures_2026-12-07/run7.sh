#!/usr/bin/env bash
# Issue 22, 2026-12-07 (seventh session, about 18:45), written before the run: where the two-pass
# scan's time goes. device_driver.cpp linked with branch signature-scan-v2 (de3daa6) plus
# profile_v2.patch (both kernels timed by their events, the marked features counted, the wall of
# pairSums and its preparation), the library's search on one thread, device side, 2 rounds.
# Expected: on 18:05's H200 the two-pass search took 7.70 ms mean at verify 0, about 1.2 ms less than
# the single kernel whose pairSums was 4.5 ms wall (3.5 ms kernel), so pairSums about 3.3 ms. The marks
# pass reads 62 MB (7.8 million signatures) and should take at most 0.3 ms at a tenth of the card's
# bandwidth, the runs pass (68,000 marked features, 63,000 runs) less; if so, 2.5 ms or more of the
# wall is the host's: the tasks' preparation, three uploads, two blocking round trips and the
# read-back of 1.3 MB of runs. If the kernels take 2 ms or more, the marks pass is what to change.
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
BOVW_PROFILE_SIGNATURES=1 OMP_NUM_THREADS=1 taskset -c 2 device_driver_v2prof $W/db $W/jpegs 2 device $W/r.txt
