#!/usr/bin/env bash
# `bovw serve` under load (docs/PERFORMANCE.md, "Serving"): throughput and latency percentiles
# against concurrent clients, for databases of each size, with wrk posting real JPEGs (Debian's
# opencv-doc sample photos), then the same searches while a second client adds images.
#
# Usage: bench/serve/serve_bench.sh BUILD_DIR OUT_DIR [IMAGES=10000,100000] [CLIENTS=1,2,4,8,16]
#        [SECONDS=10] [QUERY=/search?top=10]
# Writes OUT_DIR/serve_bench.json (one record per run) and OUT_DIR/metrics-N.txt (the server's /metrics
# after the runs of N images) and prints a table. Needs wrk.
# With a QUERY that verifies (/search?top=10&verify=50) the databases store keypoints.
# Environment: BOVW_SAMPLES, the folder of JPEGs (default: opencv-doc's); BOVW_WORDS, the words of
# the vocabulary trained on them when OUT_DIR holds none (default 1000); BOVW_SERVE_OPTIONS, more
# options of `bovw serve` and of the CLI pipeline it is compared with (e.g. "--backend opencl");
# BOVW_SERVE_ONLY_OPTIONS, options of `bovw serve` alone (e.g. "--batch-images 1").
set -euo pipefail
build=$(realpath "$1"); out=$(realpath -m "$2")
sizes=${3:-10000,100000}; clients=${4:-1,2,4,8,16}; seconds=${5:-10}; query=${6:-/search?top=10}
here=$(dirname "$(realpath "$0")")
samples=${BOVW_SAMPLES:-/usr/share/doc/opencv-doc/examples/data}
read -r -a extra <<< "${BOVW_SERVE_OPTIONS:-}"
read -r -a serve_only <<< "${BOVW_SERVE_ONLY_OPTIONS:-}"
source "$here/serve_common.sh"
bovw_copy_samples "$samples" "$out"
records="$out/serve_bench.jsonl"
: > "$records"

if [[ ! -f "$out/vocabulary.bovw" ]]; then
  "$build/bovw" train "$out/jpegs" --words "${BOVW_WORDS:-1000}" --seed 1 --output "$out/vocabulary.bovw" --quiet "${extra[@]}"
fi

# load N CLIENTS KIND: one wrk run (2 threads at most: the machine's other work is the server's).
load() {
  local url=$1 c=$2 kind=$3 method=${4:-POST}
  local threads=$(( c < 2 ? c : 2 ))
  BOVW_METHOD=$method wrk -t"$threads" -c"$c" -d"${seconds}s" --timeout 30s -s "$here/post_images.lua" "$url" -- "${jpegs[@]}" \
    | tail -1 | python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r.update(images=$n, clients=$c, kind='$kind'); print(json.dumps(r))"
}

# The ceiling to compare with, in the same run: the CLI's files-to-histograms pipeline over the same
# JPEGs (every core busy, no HTTP, no ranking): the images per second the machine extracts.
# The JPEGs 20 times over (links), so that the program's start and kernel builds are a small part.
mkdir -p "$out/jpegs20"
for copy in $(seq 20); do for f in "${jpegs[@]}"; do ln -sf "$f" "$out/jpegs20/$copy-$(basename "$f")"; done; done
start=$(date +%s.%N)
"$build/bovw" histogram --images "$out/jpegs20" --vocabulary "$out/vocabulary.bovw" --output "$out/h.npy" --quiet "${extra[@]}" > /dev/null
python3 -c "import json; s=$(date +%s.%N)-$start; n=20*${#jpegs[@]}; print(json.dumps(dict(kind='cli-histogram-pipeline', images=0, clients=0, requests=n, seconds=s, rps=n/s, p50_ms=0, p90_ms=0, p99_ms=0, errors=0)))" | tee -a "$records"

for n in ${sizes//,/ }; do
  db="$out/db-$n.bovwlive"
  rm -rf "$db"
  "${BOVW_SERVING_DATABASE:-$build/bench/serve/bovw_serving_database}" --vocabulary "$out/vocabulary.bovw" --samples "$out/jpegs" \
    --images "$n" --output "$db" $([[ $query == *verify=* ]] && echo --keypoints)
  bovw_start_server "$out/serve-$n" "$build/bovw" --index "$db" --log-level warn "${extra[@]}" "${serve_only[@]}"
  url="http://127.0.0.1:$port$query"
  seconds_saved=$seconds; seconds=3; load "$url" 4 warmup > /dev/null; seconds=$seconds_saved
  for c in ${clients//,/ }; do load "$url" "$c" search | tee -a "$records"; done
  # Searches while another client adds images, one PUT at a time.
  load "http://127.0.0.1:$port" 1 add PUT > "$out/add-$n.json" &
  adder=$!
  load "$url" 8 search-beside-adds | tee -a "$records"
  wait "$adder"
  tee -a "$records" < "$out/add-$n.json"
  # Where the searches' time went (waiting for a turn, features, ranking), from the server's metrics.
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" > "$out/metrics-$n.txt" || true
  kill -TERM "$server"; wait "$server" || true
  rm -rf "$db"
done
python3 - "$records" "$out/serve_bench.json" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
print("%8s %-18s %7s %9s %8s %8s %6s" % ("images", "kind", "clients", "req/s", "p50 ms", "p99 ms", "errors"))
for r in rows:
    print("%8d %-18s %7d %9.1f %8.2f %8.2f %6d" % (r["images"], r["kind"], r["clients"], r["rps"], r["p50_ms"], r["p99_ms"], r["errors"]))
PY
