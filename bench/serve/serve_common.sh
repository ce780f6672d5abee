# Shared by the `bovw serve` benchmarks (source it):
#   bovw_copy_samples SAMPLES OUT   the JPEGs of the folder SAMPLES into OUT/jpegs; sets the array `jpegs`
#   bovw_start_server LOG BOVW ARGS...
#                                   `BOVW serve ARGS...` on a free port of 127.0.0.1, in the background,
#                                   its output in LOG.out and LOG.err; once it is ready, sets `server`
#                                   (its process id) and `port`

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
