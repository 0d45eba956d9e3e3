-- The extensibility study, coprocessor: Envoy's Lua filter calls the coprocessor (its own
-- process, started beside Envoy by proxybench: the `coprocessor` cluster of envoy.yaml) with
-- httpCall, one stage of Apollo Router's coprocessor protocol per request. Envoy's Lua has no
-- JSON parser: x-proxybench-mirror asks the coprocessor to answer in headers and status too
-- (coprocessors/README.md). Each test's envoy.yaml loads this file and names one function.
local M = {}

-- As Apollo Router's `timeout: 2s` in its coprocessor configs.
local TIMEOUT_MS = 2000
local last_id = 0

-- A JSON string: a token is base64url and dots, but a client may send anything.
local function json_string(s)
  local escaped = s:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end)
  return '"' .. escaped .. '"'
end

-- POSTs the stage to an endpoint; returns the coprocessor's answer headers (`:status` and the
-- mirrored x-coprocessor-header-<name>). The id only has to come back unchanged.
local function call(handle, endpoint, stage)
  last_id = last_id + 1
  local authorization = handle:headers():get("authorization") or ""
  local body = string.format(
    '{"version":1,"stage":"%s","control":"continue","id":"envoy-%d","headers":{"authorization":[%s]}}',
    stage, last_id, json_string(authorization))
  return handle:httpCall("coprocessor", {
    [":method"] = "POST",
    [":path"] = endpoint,
    [":authority"] = "coprocessor",
    ["content-type"] = "application/json",
    ["x-proxybench-mirror"] = "1",
  }, body, TIMEOUT_MS)
end

-- On the request path: a 401 from the coprocessor is the client's 401, any other failure a 502
-- (as HAProxy's coprocessor variant); true when the request was answered here.
local function refused(handle, headers)
  local status = headers and headers[":status"]
  if status == "200" then return false end
  handle:respond({ [":status"] = status == "401" and "401" or "502" }, "")
  return true
end

function M.static_header(handle)
  local headers = call(handle, "/static-subgraph", "SubgraphRequest")
  if refused(handle, headers) then return end
  handle:headers():replace("source", headers["x-coprocessor-header-source"] or "")
end

-- On the response path (the RouterResponse stage): a failed call turns the response into a 502.
function M.guid_response(handle)
  local headers = call(handle, "/guid-response", "RouterResponse")
  if not headers or headers[":status"] ~= "200" then
    handle:headers():replace(":status", "502")
    return
  end
  for i = 1, 10 do
    local name = "x-guid-" .. i
    handle:headers():replace(name, headers["x-coprocessor-header-" .. name] or "")
  end
end

-- The coprocessor validates the token; /health, the runner's readiness check, has none.
function M.client_awareness(handle)
  if handle:headers():get(":path") == "/health" then return end
  local headers = call(handle, "/client-awareness", "RouterRequest")
  if refused(handle, headers) then return end
  for _, name in ipairs({ "apollographql-client-name", "apollographql-client-version" }) do
    local value = headers["x-coprocessor-header-" .. name]
    if value then handle:headers():replace(name, value) end
  end
end

return M
