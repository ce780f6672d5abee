#!/usr/bin/env bash
# tiled-tf32 with the words staged in local memory: a shape sweep, then the best shape against
# tiled and PyTorch in the same run. Expectation written before the run (journal 2026-11-27).
set -uo pipefail
source .device/opencl-env.sh
tar xJf .device/libs.tar.xz -C /tmp && export LD_LIBRARY_PATH=/tmp/libs
export BOVW_DEVICE=NVIDIA PYTHONUNBUFFERED=1
B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader | tee $OUT/gpu.txt
echo "== tests on the GPU"
timeout 240 $B/bovw_core_tests --gtest_filter='*TiledExact*:*tiled_tf32*:Tf32*' --gtest_brief=1 > $OUT/tests.txt 2>&1
echo "exit $?"; grep -E "FAILED|PASSED|tests ran" $OUT/tests.txt | tail -6
sweep() {  # D SIZE SHAPES...
  local d=$1 size=$2; shift 2
  for t in "$@"; do
    $B/bovw-bench --dimension $d --sizes $size --variants tiled-tf32 --tiles $t --warmup 2 --repetitions 7 \
      --json $OUT/sweep_d${d}_${t//,/_}.json > $OUT/sweep_d${d}_${t//,/_}.txt 2>&1
    echo "D=$d $size tiles $t: $(python3 -c "import json,sys;m=json.load(open(sys.argv[1]))['measurements'][0];print(round(m['kernel_ms'],3),'ms',m['rechecked_rows'],'rechecked')" $OUT/sweep_d${d}_${t//,/_}.json 2>&1 | tail -1)"
  done
}
echo "== sweep D=64 1M x 1024 (MT,NT,WARPS,-,STAGE)"
sweep 64 1048576x1024 2,2,2,1,1 2,2,4,1,1 2,2,8,1,1 2,2,4,1,8 2,2,4,1,16 2,2,4,1,32 2,2,8,1,8 2,2,8,1,16 2,4,8,1,16 2,1,8,1,16 2,2,16,1,8 1,2,8,1,16 | tee $OUT/sweep_d64.txt
best=$(python3 - $OUT <<'PY'
import json,glob,sys
r=[(json.load(open(f))['measurements'][0]['kernel_ms'],f) for f in glob.glob(sys.argv[1]+'/sweep_d64_*.json')]
print(min(r)[1].split('sweep_d64_')[1][:-5].replace('_',','))
PY
)
echo "best D=64 shape: $best"
echo "== sweep D=128 1M x 1024"
sweep 128 1048576x1024 2,2,2,1,1 2,2,4,1,8 2,2,8,1,8 1,2,8,1,8 1,2,8,1,4 $best | tee $OUT/sweep_d128.txt
echo "== tiled vs tiled-tf32 (default, best) same run"
$B/bovw-bench --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled,tiled-tf32 --warmup 2 --repetitions 7 --json $OUT/bench_default.json > $OUT/bench_default.txt 2>&1; grep -E "^tiled" $OUT/bench_default.txt
$B/bovw-bench --sizes 1048576x1024,1048576x4096,180000x65536 --variants tiled-tf32 --tiles $best --warmup 2 --repetitions 7 --json $OUT/bench_best.json > $OUT/bench_best.txt 2>&1; grep -E "^tiled" $OUT/bench_best.txt
echo "== PyTorch same GPU"
python3 bench/pytorch_peer.py --sizes 1048576x1024,1048576x4096 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d64.json 2>&1 | tail -8
python3 bench/pytorch_peer.py --dimension 128 --sizes 1048576x1024 --precisions fp32,tf32,fp16 --json $OUT/pytorch_d128.json 2>&1 | tail -4
