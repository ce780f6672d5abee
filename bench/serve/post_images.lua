-- wrk script: each request sends the next of the image files named after `--` (read once per
-- thread). BOVW_METHOD=POST (default) posts them to the URL's path and query (/search?top=10);
-- BOVW_METHOD=PUT puts each under a name of its own, /images/<BOVW_PUT_PREFIX>-<thread>-<n>.jpg
-- (a client that adds; the prefix defaults to wrk: a second run with the same prefix replaces the
-- first run's images instead of adding new ones).
-- done() prints one JSON line for serve_bench.sh; errors counts non-2xx answers too.
local method = os.getenv("BOVW_METHOD") or "POST"
local prefix = os.getenv("BOVW_PUT_PREFIX") or "wrk"
local threads = {}
local bodies = {}
local next_body = 1
local sent = 0

function setup(thread)
  thread:set("id", #threads)
  threads[#threads + 1] = thread
end

function init(args)
  for _, path in ipairs(args) do
    local file = assert(io.open(path, "rb"))
    bodies[#bodies + 1] = file:read("*a")
    file:close()
  end
  assert(#bodies > 0, "post_images.lua: name image files after --")
end

function request()
  local body = bodies[next_body]
  next_body = next_body % #bodies + 1
  sent = sent + 1
  local path = nil
  if method == "PUT" then path = string.format("/images/%s-%d-%d.jpg", prefix, id, sent) end
  return wrk.format(method, path, {["Content-Type"] = "application/octet-stream"}, body)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.3f, "rps": %.1f, "p50_ms": %.2f, "p90_ms": %.2f, "p99_ms": %.2f, "errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    e.connect + e.read + e.write + e.status + e.timeout))
end
