#!/bin/bash
# Issue 22's slow PUTs on the GPU host: LiveDatabase::put alone (put_driver.cpp of 2026-12-01) into
# the same 100,000-image database with keypoints as put_bench.sh makes, no server, no GPU features.
set -u
D=$PWD/.device
tar xJf $D/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
source $D/opencl-env.sh
cd /tmp
time $D/bin/bovw train $D/jpegs --words 1000 --seed 1 --output /tmp/vocabulary.bovw --quiet
time $D/bin/bovw_serving_database --vocabulary /tmp/vocabulary.bovw --samples $D/jpegs --images 100000 --output /tmp/db --keypoints
ls -la /tmp/db
time $D/bin/put_driver /tmp/db 3000 2000
ls -la /tmp/db
