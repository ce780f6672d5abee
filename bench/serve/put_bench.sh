#!/usr/bin/env bash
# `bovw serve` taking images (docs/PERFORMANCE.md, "Serving"): PUTs per second against concurrent
# clients, and how many PUTs each durable write of the store carried (group commit), read from the
# server's /metrics before and after each run. wrk PUTs real JPEGs, each under a new name (runs of
# several client counts use a name prefix each), or with BOVW_PUT_REPLACE=1 under the names of the
# run before, whose images they replace (the first run adds).
#
# Usage: bench/serve/put_bench.sh BUILD_DIR OUT_DIR [IMAGES=10000] [CLIENTS=1,4,16] [SECONDS=10]
# Environment: BOVW_SAMPLES, the folder of JPEGs (default: opencv-doc's); BOVW_BOVW, the bovw program
# to serve with (default: BUILD_DIR/bovw; another build's, to compare); BOVW_SERVE_OPTIONS, more
# options of `bovw serve` (default: --workers 16); BOVW_KEYPOINTS=1, a database that stores keypoints
# (verification, Hamming embedding), whose writes are larger. Writes OUT_DIR/put_bench.json and prints
# a table. BOVW_METRICS_OUT=FILE: the server's /metrics after the last run, into FILE.
# Needs wrk.
set -euo pipefail
build=$(realpath "$1"); out=$(realpath -m "$2")
n=${3:-10000}; clients=${4:-1,4,16}; seconds=${5:-10}
here=$(dirname "$(realpath "$0")")
samples=${BOVW_SAMPLES:-/usr/share/doc/opencv-doc/examples/data}
bovw=${BOVW_BOVW:-$build/bovw}
read -r -a options <<< "${BOVW_SERVE_OPTIONS:---workers 16}"
source "$here/serve_common.sh"
bovw_copy_samples "$samples" "$out"
records="$out/put_bench.jsonl"
: > "$records"
if [[ ! -f "$out/vocabulary.bovw" ]]; then
  "$bovw" train "$out/jpegs" --words 1000 --seed 1 --output "$out/vocabulary.bovw" --quiet
fi

# The durable writes made so far and the requests they carried: "WRITES REQUESTS".
writes() {
  python3 - "http://127.0.0.1:$port/metrics" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1]).read().decode()
value = lambda name: float(text.split(name + " ")[1].split()[0]) if (name + " ") in text else 0.0
print(int(value("bovw_write_batch_requests_count")), int(value("bovw_write_batch_requests_sum")))
PY
}

db="$out/db-$n.bovwlive"
rm -rf "$db"
"$build/bench/serve/bovw_serving_database" --vocabulary "$out/vocabulary.bovw" --samples "$out/jpegs" --images "$n" --output "$db" \
  $([[ ${BOVW_KEYPOINTS:-0} == 1 ]] && echo --keypoints)
bovw_start_server "$out/serve" "$bovw" --index "$db" --log-level warn "${options[@]}"
trap 'kill -TERM $server 2>/dev/null || true' EXIT
run=0
for c in ${clients//,/ }; do
  read -r w0 r0 < <(writes || echo "0 0")
  threads=$(( c < 2 ? c : 2 ))
  run=$((run + 1))
  prefix=wrk$run
  [[ ${BOVW_PUT_REPLACE:-0} == 1 ]] && prefix=wrk
  result=$(BOVW_METHOD=PUT BOVW_PUT_PREFIX=$prefix wrk -t"$threads" -c"$c" -d"${seconds}s" --timeout 30s -s "$here/post_images.lua" \
             "http://127.0.0.1:$port" -- "${jpegs[@]}" | tail -1)
  read -r w1 r1 < <(writes || echo "0 0")
  python3 -c "import json,sys; r=json.loads(sys.argv[1]); r.update(images=$n, clients=$c, writes=$w1-$w0, carried=$r1-$r0); print(json.dumps(r))" \
    "$result" | tee -a "$records"
done
if [[ -n ${BOVW_METRICS_OUT:-} ]]; then
  python3 -c "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "http://127.0.0.1:$port/metrics" > "$BOVW_METRICS_OUT"
fi
kill -TERM "$server"; wait "$server" || true
trap - EXIT
rm -rf "$db"
python3 - "$records" "$out/put_bench.json" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
json.dump(rows, open(sys.argv[2], "w"), indent=1)
print("%8s %7s %9s %8s %8s %8s %12s" % ("images", "clients", "PUT/s", "p50 ms", "p99 ms", "errors", "PUTs/write"))
for r in rows:
    per = r["carried"] / r["writes"] if r["writes"] else float("nan")
    print("%8d %7d %9.1f %8.2f %8.2f %8d %12.2f" % (r["images"], r["clients"], r["rps"], r["p50_ms"], r["p99_ms"], r["errors"], per))
PY
