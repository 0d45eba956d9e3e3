-- proxybench's wrk script (src/engines/wrk/). The scenario's requests arrive in
-- PROXYBENCH_WRK_REQUESTS as a Lua table literal; the JSON summary goes to PROXYBENCH_WRK_OUT.
--
-- One request: it is set on `wrk` and no request() function is defined, so wrk sends a static,
-- pre-built request exactly as plain `wrk URL` does (no per-request Lua call).
-- Several requests: each thread pre-formats them and request() cycles through them.
-- No response() function: defining one makes wrk hand every response to Lua, which costs
-- throughput. wrk therefore cannot check bodies; proxybench's probe does that before the load.

local source = os.getenv("PROXYBENCH_WRK_REQUESTS")
if source == nil or source == "" then
  error("PROXYBENCH_WRK_REQUESTS is not set: run this script through `proxybench run --engine wrk`")
end
local requests = assert(loadstring("return " .. source))()

if #requests == 1 then
  local r = requests[1]
  wrk.method = r.method
  wrk.path = r.path
  wrk.body = r.body
  for name, value in pairs(r.headers) do
    wrk.headers[name] = value
  end
else
  local formatted = {}
  local index = 0

  function init(args)
    for _, r in ipairs(requests) do
      formatted[#formatted + 1] = wrk.format(r.method, r.path, r.headers, r.body)
    end
  end

  function request()
    index = index % #formatted + 1
    return formatted[index]
  end
end

local percentiles = { 50, 75, 90, 95, 99, 99.9 }

function done(summary, latency, _)
  local parts = {}
  for _, p in ipairs(percentiles) do
    parts[#parts + 1] = string.format('"%s": %d', tostring(p), latency:percentile(p))
  end
  local e = summary.errors
  local json = string.format(
    '{"requests": %d, "duration_us": %d, "bytes": %d, '
      .. '"errors": {"connect": %d, "read": %d, "write": %d, "status": %d, "timeout": %d}, '
      .. '"latency_us": {"min": %d, "mean": %.3f, "max": %d, "stdev": %.3f, "percentiles": {%s}}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.max, latency.stdev, table.concat(parts, ", ")
  )
  local out = os.getenv("PROXYBENCH_WRK_OUT")
  if out == nil or out == "" then
    io.write(json)
    return
  end
  local file = assert(io.open(out, "w"))
  file:write(json)
  file:close()
end
