-- wrk script: each request sends the next of the image files named after `--` (read once per
-- thread). BOVW_METHOD=POST (default) posts them to the URL's path and query (/search?top=10);
-- BOVW_METHOD=PUT puts each under a new name, /images/wrk-<thread>-<n>.jpg (a client that adds).
-- done() prints one JSON line for serve_bench.sh; errors counts non-2xx answers too.
local method = os.getenv("BOVW_METHOD") or "POST"
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
  if method == "PUT" then path = string.format("/images/wrk-%d-%d.jpg", id, sent) end
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
