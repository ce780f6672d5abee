#!/usr/bin/env bash
# The serving bench with today's last binary: intersection (comparable with the earlier rows), then the
# default scoring (auto: Hamming embedding on this database with keypoints).
set -uo pipefail
.device/serve_gpu.sh '/search?top=10&verify=50&scoring=intersection' 100000 1,16,64 16384
mkdir -p $OUT/intersection && mv $OUT/*.json $OUT/*.txt $OUT/intersection/ 2>/dev/null
.device/serve_gpu.sh '/search?top=10&verify=50' 100000 1,16,64 16384
mkdir -p $OUT/auto && mv $OUT/*.json $OUT/*.txt $OUT/auto/ 2>/dev/null
