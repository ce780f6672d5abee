#!/usr/bin/env bash
# Issue 25's 1.2x limit, one lease: `bovw histogram --images` with default flags on 24,000 ~640-px
# JPEGs (the 150 of make_ukbench_set.py --views 4 --seed 11 --max-side 800, 160 times), before
# (508fad6: histograms gathered in memory, written at the end) and after (written as the pipeline
# finishes them; the folder listed while the device starts), alternating, three rounds each; the
# limits in the same run: decode-only (bovw_decode_bench) and device-only (--profile's device time);
# the process's exit (wall minus --profile's total); the outputs compared byte for byte.
set -uo pipefail
source bench/device_common.sh
bovw_opencl_env && bovw_use_libs .device/libs.tar.xz || exit 1
D=.device/bin
chmod +x $D/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^(Model name|CPU\(s\))"
df -h /tmp | tail -1
w=/tmp/so
mkdir -p $w
bovw_copy_set .device/set 160 $w/many > /dev/null || exit 1
n=$(ls $w/many/*.jpg | wc -l)
$D/bovw-after train .device/set --words 1000 --seed 1 --quiet --output $w/v.bovw 2>&1 | tail -1
ns() { date +%s%N; }
rate() { awk -v n=$1 -v t=$2 'BEGIN {printf "%.1f", n / (t / 1e9)}'; }
$D/bovw-after histogram --images .device/set --vocabulary $w/v.bovw --quiet --output $w/warm.npy > /dev/null 2>&1
for r in 1 2 3; do
  for v in before after; do
    s=$(ns); $D/bovw-$v histogram --images $w/many --vocabulary $w/v.bovw --quiet --output $w/h_$v.npy > /dev/null 2>&1 || echo "$v failed"; e=$(ns)
    echo "$v, run $r: $(rate $n $((e - s))) images/s ($(( (e - s) / 1000000 )) ms)"
  done
done
cmp $w/h_before.npy $w/h_after.npy && cmp $w/h_before.names.txt $w/h_after.names.txt && echo "outputs identical before and after"
for v in before after; do
  echo "$v --profile:"
  s=$(ns); $D/bovw-$v histogram --images $w/many --vocabulary $w/v.bovw --quiet --profile --output $w/p_$v.npy 2> $w/prof_$v.txt > /dev/null; e=$(ns)
  grep "^profile" $w/prof_$v.txt
  echo "$v: wall $(( (e - s) / 1000000 )) ms with --profile"
done
echo "decode-only:"; $D/bovw_decode_bench --rounds 3 $w/many 2>&1 | tail -1
echo "NVIDIA's platform alone (bovw devices, two runs):"
for r in 1 2; do s=$(ns); $D/bovw-after devices > /dev/null 2>&1; e=$(ns); echo "  $(( (e - s) / 1000000 )) ms"; done
