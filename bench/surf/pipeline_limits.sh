#!/usr/bin/env bash
# Issue 25's measurement in one run: files to histograms with DEFAULT flags (what `--backend auto`
# and `--surf-backend auto` choose), against its limit, the larger of
#   the decode-only rate  (bovw_decode_bench: the device route's workers decoding into pinned
#                          staging on every core, no device work), and
#   the device-only rate  (images / the device's busy time in the fused route's --profile: SURF's
#                          stages and the histogram kernel, device timestamps);
# for ~800 x 500 JPEGs (SET_DIR copied COPIES times) and the same images resized to 1600 x 1200, plus
# `bovw index --keypoints` with default flags, with the histograms checked against builtin SURF +
# OpenMP. Medians of $BOVW_ROUNDS runs (default 3). Prints a summary table at the end.
# Usage: bench/surf/pipeline_limits.sh BUILD_DIR SET_DIR [COPIES] [LIBS]
#   COPIES default 8 (a UKBench-style set of 304 images gives issue 25's 2,432); LIBS as for
#   gpu_fused.sh (with it, NVIDIA's OpenCL is registered from .device/; without, this machine's
#   OpenCL, PoCL for a smoke run: BOVW_ROUNDS=1 bench/surf/pipeline_limits.sh build SMALL_SET 1).
set -uo pipefail
build=$1; set=$2; copies=${3:-8}; libs=${4:-}
rounds=${BOVW_ROUNDS:-3}
if [ -n "$libs" ]; then
  source bench/device_common.sh
  bovw_opencl_env && bovw_use_libs "$libs" || exit 1
fi
bovw=$build/bovw
decode=$build/bench/surf/bovw_decode_bench
for p in "$bovw" "$decode"; do [ -x "$p" ] || { echo "missing $p (build bovw_cli and bovw_decode_bench)" >&2; exit 1; }; done
work=${BOVW_LIMITS_DIR:-/tmp/bovw_limits}
rm -rf "$work" && mkdir -p "$work/small" || exit 1
for r in $(seq 1 "$copies"); do
  for f in "$set"/*.jpg; do cp "$f" "$work/small/r${r}_$(basename "$f")" || exit 1; done
done
"$decode" --resize 1600x1200 "$work/small" "$work/large" || exit 1
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name --format=csv,noheader
"$bovw" devices 2>&1 | head -5
"$bovw" train "$work/small" --words 1000 --seed 1 --quiet --output "$work/v.bovw" || exit 1

now() { date +%s%N; }
median() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
rate() { awk -v n="$1" -v s="$2" -v e="$3" 'BEGIN {printf "%.1f", n / ((e - s) / 1e9)}'; }

summary=()
for name in small large; do
  dir=$work/$name
  n=$(ls "$dir"/*.jpg | wc -l)
  size=$(file -b "$(ls "$dir"/*.jpg | head -1)" 2>/dev/null | grep -o '[0-9]*x[0-9]*' | tail -1)
  size=${size:-?}
  echo "== $name: $n JPEGs of $size"
  # 1. Files to histograms, default flags.
  rates=()
  for r in $(seq 1 "$rounds"); do
    s=$(now); "$bovw" histogram --images "$dir" --vocabulary "$work/v.bovw" --quiet --output "$work/h_default.npy" \
      > /dev/null 2>&1 || { echo "histogram (default flags) failed" >&2; exit 1; }; e=$(now)
    rates+=("$(rate "$n" "$s" "$e")"); echo "histogram, default flags, run $r: ${rates[-1]} images/s"
  done
  default_rate=$(printf '%s\n' "${rates[@]}" | median)
  # 2. Where the default run's time goes; the device-only rate from the fused route's device time
  #    (default flags where they take the fused route, else SURF and histograms on OpenCL by name).
  profile=$("$bovw" histogram --images "$dir" --vocabulary "$work/v.bovw" --quiet --profile \
    --output "$work/h_profile.npy" 2>&1 | grep '^profile')
  route="default flags"
  if ! grep -q "fused device route" <<< "$profile"; then
    route="--surf-backend opencl --backend opencl (default flags took no device route)"
    profile=$("$bovw" histogram --images "$dir" --vocabulary "$work/v.bovw" --quiet --profile --surf-backend opencl \
      --backend opencl --output "$work/h_profile.npy" 2>&1 | grep '^profile')
  fi
  echo "$profile"
  device_s=$(grep -o 'device [0-9.]* s' <<< "$profile" | awk '{print $2}')
  device_rate=$(awk -v n="$n" -v s="${device_s:-0}" 'BEGIN {printf("%.1f", (s > 0 ? n / s : 0))}')
  echo "device-only ($route): ${device_s:-?} s of device time, $device_rate images/s"
  # 3. Decode only.
  "$decode" --rounds "$rounds" "$dir" | tee "$work/decode.txt" | tail -1
  decode_rate=$(tail -1 "$work/decode.txt" | grep -o 'median [0-9.]*' | awk '{print $2}')
  # 4. The CPU reference: identical histograms.
  "$bovw" histogram --images "$dir" --vocabulary "$work/v.bovw" --quiet --surf-backend builtin --backend openmp \
    --output "$work/h_cpu.npy" > /dev/null 2>&1
  if cmp -s "$work/h_default.npy" "$work/h_cpu.npy" && cmp -s "$work/h_profile.npy" "$work/h_cpu.npy"; then
    same="identical"
  else
    same="DIFFER"
  fi
  echo "histograms: default flags, the profiled run and builtin SURF + OpenMP $same"
  # 5. index --keypoints, default flags.
  rates=()
  for r in $(seq 1 "$rounds"); do
    rm -f "$work/db.bovwdb"
    s=$(now); "$bovw" index "$dir" --vocabulary "$work/v.bovw" --keypoints --quiet --output "$work/db.bovwdb" \
      > /dev/null 2>&1 || { echo "index --keypoints failed" >&2; exit 1; }; e=$(now)
    rates+=("$(rate "$n" "$s" "$e")"); echo "index --keypoints, default flags, run $r: ${rates[-1]} images/s"
  done
  index_rate=$(printf '%s\n' "${rates[@]}" | median)
  summary+=("$(awk -v name="$name" -v size="$size" -v n="$n" -v d="$default_rate" -v dec="$decode_rate" \
    -v dev="$device_rate" -v idx="$index_rate" -v same="$same" 'BEGIN {
      limit = dec > dev ? dec : dev; bound = dec > dev ? "decode" : "device";
      printf("%-6s %-10s %6d %12.1f %12.1f %12.1f %12.1f (%s) %8.2fx %12.1f  %s", name, size, n, d, dec, dev, limit,
             bound, (d > 0 ? limit / d : 0), idx, same) }')")
done
echo
echo "== summary (images/s; limit = max(decode-only, device-only); the target: default within 1.2x of it, >= 5,000 on 800 x 500)"
printf "%-6s %-10s %6s %12s %12s %12s %21s %9s %12s  %s\n" set size images default decode-only device-only limit \
  limit/def "index --kp" histograms
printf '%s\n' "${summary[@]}"
