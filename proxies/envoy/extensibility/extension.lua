-- The extensibility study's script variant for Envoy: its Lua filter (LuaJIT, so Lua 5.1: no
-- bitwise operators) doing the same three tests as the coprocessors (coprocessors/README.md)
-- in process. Each test's envoy.yaml loads this file and names one of its functions as
-- envoy_on_request or envoy_on_response.
local M = {}

-- Every worker has a Lua state of its own, each seeded at start: without a seed of its own,
-- every worker would draw the same GUIDs. A new table's address differs between states.
local address = tonumber(tostring({}):match("0x(%x+)") or "0", 16) or 0
math.randomseed(os.time() + math.floor(os.clock() * 1e6) + address % 1000003)

-- A random GUID (version 4), from 16-bit draws: the version nibble is 4, the variant 8 to b.
local function guid()
  local r = math.random
  return string.format("%04x%04x-%04x-4%03x-%x%03x-%04x%04x%04x", r(0, 0xffff), r(0, 0xffff),
    r(0, 0xffff), r(0, 0xfff), r(8, 11), r(0, 0xfff), r(0, 0xffff), r(0, 0xffff), r(0, 0xffff))
end
M.guid = guid

function M.static_header(handle)
  handle:headers():replace("source", "script")
end

function M.guid_response(handle)
  local headers = handle:headers()
  for i = 1, 10 do headers:replace("x-guid-" .. i, guid()) end
end

-- Envoy's Lua has no HMAC: jwt_authn, before this filter, verifies the token (a bad one gets
-- its 401 there) and leaves the payload in the dynamic metadata; the script sends the
-- client's name and version from it upstream, as Apollo Router's Rhai reads the claims the
-- router verified. Only /health passes jwt_authn without a token.
function M.client_awareness(handle)
  local verified = handle:streamInfo():dynamicMetadata():get("envoy.filters.http.jwt_authn")
  local claims = verified and verified.jwt_payload
  local name = claims and claims.client_name
  local version = claims and claims.client_version
  if type(name) ~= "string" or type(version) ~= "string" then
    if handle:headers():get(":path") ~= "/health" then
      handle:respond({ [":status"] = "401" }, "")
    end
    return
  end
  handle:headers():replace("apollographql-client-name", name)
  handle:headers():replace("apollographql-client-version", version)
end

return M
