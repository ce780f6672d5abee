#!/usr/bin/env bash
# On the GPU machine: bovw serve under wrk, GPU backends. Usage: .device/serve_gpu.sh QUERY SIZES CLIENTS [WORDS]
# (WORDS: train a vocabulary of that size there instead of using the 1,000-word one carried)
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/serve-libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/serve-libs
mkdir -p /tmp/bin && cp .device/bin/wrk /tmp/bin/ && export PATH=/tmp/bin:$PATH
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; nproc
.device/bin/bovw devices | head -20
out=/tmp/serve-out-${4:-carried}; mkdir -p $out; [[ -n "${4:-}" ]] || cp .device/serve/vocabulary.bovw $out/
export BOVW_WORDS=${4:-1000}
BOVW_SAMPLES=$PWD/.device/serve/jpegs BOVW_SERVE_OPTIONS="--backend opencl" \
  BOVW_SERVING_DATABASE=$PWD/.device/bin/bovw_serving_database \
  bench/serve/serve_bench.sh .device/bin $out "$2" "$3" 10 "$1" 2>&1 | tail -30
cp $out/serve_bench.json $OUT/serve_bench_${4:-1000}_$(echo "$1" | tr -c 'a-z0-9' '_').json 2>/dev/null; tail -3 $out/serve-*.err > $OUT/serve-err.txt 2>/dev/null; cp $out/metrics-*.txt $OUT/ 2>/dev/null; cat $out/serve-*.out
