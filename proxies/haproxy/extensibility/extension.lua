-- The extensibility study's script variant for HAProxy (Lua): the same three tests as the
-- coprocessors (coprocessors/README.md), in process.
local JWT_KEY = "proxybench-extensibility-key"
math.randomseed(os.time() + math.floor(os.clock() * 1e6))

local function guid()
  local b = {}
  for i = 1, 16 do b[i] = math.random(0, 255) end
  b[7] = (b[7] & 0x0f) | 0x40
  b[9] = (b[9] & 0x3f) | 0x80
  local h = {}
  for i = 1, 16 do h[i] = string.format("%02x", b[i]) end
  local s = table.concat(h)
  return s:sub(1, 8) .. "-" .. s:sub(9, 12) .. "-" .. s:sub(13, 16) .. "-" .. s:sub(17, 20) .. "-" .. s:sub(21)
end

core.register_action("proxybench_source", { "http-req" }, function(txn)
  txn.http:req_set_header("source", "script")
end, 0)

core.register_action("proxybench_guids", { "http-res" }, function(txn)
  for i = 1, 10 do txn.http:res_set_header("x-guid-" .. i, guid()) end
end, 0)

-- HAProxy's own JWT converters, called from Lua: the token is checked here, in the script.
core.register_action("proxybench_client", { "http-req" }, function(txn)
  local auth = txn.http:req_get_headers()["authorization"]
  local token = auth and auth[0] and auth[0]:match("^Bearer (.+)$")
  local ok = token and txn.c:jwt_header_query(token, "$.alg") == "HS256" and
    txn.c:jwt_verify(token, "HS256", JWT_KEY) == 1
  local name = ok and txn.c:jwt_payload_query(token, "$.client_name")
  local version = ok and txn.c:jwt_payload_query(token, "$.client_version")
  if not (name and version) then
    txn:set_var("txn.client_ok", 0)
    return
  end
  txn:set_var("txn.client_ok", 1)
  txn.http:req_set_header("apollographql-client-name", name)
  txn.http:req_set_header("apollographql-client-version", version)
end, 0)
