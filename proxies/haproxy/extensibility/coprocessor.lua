-- The extensibility study, coprocessor: a Lua action calls the coprocessor (its own process,
-- started beside HAProxy by proxybench) with HAProxy's HTTP client, one stage of Apollo Router's
-- coprocessor protocol per request. Lua has no JSON parser here: x-proxybench-mirror asks the
-- coprocessor to answer in headers and status too (coprocessors/README.md).
local COPROCESSOR = "http://127.0.0.1:{{sidecarPort}}"

local function first(headers, name)
  local values = headers and headers[name]
  return values and (values[0] or values[1])
end

-- Calls an endpoint; returns the coprocessor's status and its mirrored headers.
local function call(txn, endpoint, stage)
  local authorization = first(txn.http:req_get_headers(), "authorization") or ""
  local body = string.format(
    '{"version":1,"stage":"%s","control":"continue","id":"%s","headers":{"authorization":["%s"]}}',
    stage, txn.f:uuid(), authorization)
  local res = core.httpclient():post{
    url = COPROCESSOR .. endpoint,
    body = body,
    headers = { ["content-type"] = { "application/json" }, ["x-proxybench-mirror"] = { "1" } },
  }
  txn:set_var("txn.coprocessor_status", res and res.status or 502)
  return res and res.headers
end

core.register_action("proxybench_cp_source", { "http-req" }, function(txn)
  local headers = call(txn, "/static-subgraph", "SubgraphRequest")
  txn.http:req_set_header("source", first(headers, "x-coprocessor-header-source") or "")
end, 0)

core.register_action("proxybench_cp_guids", { "http-req" }, function(txn)
  local headers = call(txn, "/guid-response", "RouterResponse")
  for i = 1, 10 do
    txn:set_var("txn.guid" .. i, first(headers, "x-coprocessor-header-x-guid-" .. i) or "")
  end
end, 0)

core.register_action("proxybench_cp_client", { "http-req" }, function(txn)
  local headers = call(txn, "/client-awareness", "RouterRequest")
  for _, name in ipairs({ "apollographql-client-name", "apollographql-client-version" }) do
    local value = first(headers, "x-coprocessor-header-" .. name)
    if value then txn.http:req_set_header(name, value) end
  end
end, 0)
