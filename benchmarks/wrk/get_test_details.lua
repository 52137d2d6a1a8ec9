-- wrk script: POST get-test-details to the sandbox, cycling through real test ids.
-- Environment (set by scripts/loadtest): TRUNK_TOKEN, TRUNK_REPO_HOST/OWNER/NAME, TRUNK_ORG, TRUNK_IDS
-- (comma-separated test ids). done() prints one machine-readable line per number the script reports.

local ids = {}
for id in string.gmatch(os.getenv("TRUNK_IDS") or "", "[^,]+") do ids[#ids + 1] = id end
local counter = 0

wrk.method = "POST"
wrk.path = "/v1/flaky-tests/get-test-details"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["x-api-token"] = os.getenv("TRUNK_TOKEN")

local prefix = string.format('{"repo":{"host":"%s","owner":"%s","name":"%s"},"org_url_slug":"%s","test_id":"',
  os.getenv("TRUNK_REPO_HOST"), os.getenv("TRUNK_REPO_OWNER"), os.getenv("TRUNK_REPO_NAME"), os.getenv("TRUNK_ORG"))

request = function()
  counter = counter + 1
  local body = prefix .. ids[(counter % #ids) + 1] .. '"}'
  return wrk.format(nil, nil, nil, body)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("result requests %d\n", summary.requests))
  io.write(string.format("result duration_s %.3f\n", summary.duration / 1e6))
  io.write(string.format("result req_per_s %.1f\n", summary.requests / (summary.duration / 1e6)))
  io.write(string.format("result p50_ms %.3f\n", latency:percentile(50) / 1000))
  io.write(string.format("result p99_ms %.3f\n", latency:percentile(99) / 1000))
  io.write(string.format("result max_ms %.3f\n", latency.max / 1000))
  io.write(string.format("result socket_errors %d\n", e.connect + e.read + e.write + e.timeout))
  io.write(string.format("result errors_connect %d read %d write %d timeout %d\n", e.connect, e.read, e.write, e.timeout))
  io.write(string.format("result non_2xx %d\n", e.status))
end
