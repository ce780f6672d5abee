# Shared by the `bovw serve` benchmarks (source it):
#   bovw_copy_samples SAMPLES OUT   the JPEGs of the folder SAMPLES into OUT/jpegs; sets the array `jpegs`
#   bovw_start_server LOG BOVW ARGS...
#                                   `BOVW serve ARGS...` on a free port of 127.0.0.1, in the background,
#                                   its output in LOG.out and LOG.err; once it is ready, sets `server`
#                                   (its process id) and `port`
#   bovw_serving_database SAMPLES WORK BOVW MAKE
#                                   the samples copied into WORK (bovw_copy_samples), a vocabulary of
#                                   16,384 words trained on them by BOVW and the 100,000-image database
#                                   of them (keypoints kept) made by MAKE (bench/serve's
#                                   bovw_serving_database) in WORK/db; each kept where WORK holds it
#   bovw_load_server URL            warm-up (4 clients, 3 s), then 16 clients POSTing the `jpegs` to URL
#                                   for 8 s: prints wrk's line, the server's CPU milliseconds a search
#                                   and its stages' seconds from /metrics

bovw_copy_samples() {
  mkdir -p "$2/jpegs"
  cp "$1"/*.jpg "$2/jpegs/"
  jpegs=("$2"/jpegs/*.jpg)
}

bovw_start_server() {
  local log=$1 bovw=$2
  shift 2
  "$bovw" serve --listen 127.0.0.1:0 "$@" > "$log.out" 2> "$log.err" &
  server=$!
  for _ in $(seq 100); do grep -q "ready on" "$log.out" 2>/dev/null && break; sleep 0.2; done
  port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log.out")
}

bovw_serving_database() {
  local samples=$1 work=$2 bovw=$3 make=$4
  bovw_copy_samples "$samples" "$work"
  [ -f "$work/vocabulary.bovw" ] ||
    "$bovw" train "$work/jpegs" --words 16384 --seed 1 --output "$work/vocabulary.bovw" --quiet
  [ -d "$work/db" ] || "$make" --vocabulary "$work/vocabulary.bovw" --samples "$work/jpegs" --images 100000 \
    --keypoints --output "$work/db" | tail -1
}

bovw_load_server() {
  local url=$1 before after result
  BOVW_METHOD=POST wrk -t2 -c4 -d3s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" > /dev/null
  before=$(awk '{print $14 + $15}' /proc/$server/stat)
  result=$(BOVW_METHOD=POST wrk -t2 -c16 -d8s --timeout 30s -s bench/serve/post_images.lua "$url" -- "${jpegs[@]}" | tail -1)
  after=$(awk '{print $14 + $15}' /proc/$server/stat)
  echo "$result"
  python3 -c "import json, sys; r = json.loads(sys.argv[1]); print('  server CPU %.1f ms a search' % (10.0 * ($after - $before) / r['requests']))" "$result"
  python3 -c "import urllib.request, sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())" \
    "${url%%/search*}/metrics" | grep "search_stage_seconds_\(sum\|count\)" | grep -v waiting | tr '\n' ' '
  echo
}
