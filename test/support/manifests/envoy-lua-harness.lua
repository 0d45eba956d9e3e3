-- Runs the Lua filter code of a rendered Envoy config outside Envoy, under LuaJIT (the Lua Envoy
-- embeds), with a stand-in for Envoy's stream handle: test/processes/manifests/envoy-extensions.test.ts.
--
-- Usage: luajit envoy-lua-harness.lua CODE_FILE PHASE CASE_FILE
--   CODE_FILE  the filter's inline code (default_source_code.inline_string), as rendered
--   PHASE      request or response: runs envoy_on_request or envoy_on_response
--   CASE_FILE  a Lua chunk returning { headers = {...}, metadata = {...}, reply = {...} }: the
--              stream's headers, the dynamic metadata by namespace, httpCall's answer headers
-- Prints what the script did, one line each, tab-separated: "set NAME VALUE",
-- "respond STATUS", "call CLUSTER PATH TIMEOUT MIRROR BODY".
local code_file, phase, case_file = arg[1], arg[2], arg[3]
local case = assert(loadfile(case_file))()

local function out(...)
  io.write(table.concat({ ... }, "\t"), "\n")
end

local stream = case.headers or {}
local headers = {}
function headers:get(name) return stream[name] end
function headers:replace(name, value)
  assert(type(value) == "string", "header " .. name .. ": not a string")
  stream[name] = value
  out("set", name, value)
end
headers.add = headers.replace
function headers:remove(name) stream[name] = nil end

local metadata = {}
function metadata:get(namespace) return (case.metadata or {})[namespace] end
local stream_info = {}
function stream_info:dynamicMetadata() return metadata end

local handle = {}
function handle:headers() return headers end
function handle:streamInfo() return stream_info end
function handle:httpCall(cluster, call_headers, body, timeout_ms)
  out("call", cluster, call_headers[":path"], tostring(timeout_ms),
    tostring(call_headers["x-proxybench-mirror"]), body)
  assert(call_headers[":method"] and call_headers[":authority"], "httpCall needs :method and :authority")
  return case.reply or { [":status"] = "503" }, ""
end
-- Envoy stops the script at respond(): the coroutine is never resumed.
function handle:respond(reply_headers, _)
  out("respond", reply_headers[":status"])
  coroutine.yield()
end

assert(loadfile(code_file))()
local entry = _G["envoy_on_" .. phase]
assert(type(entry) == "function", "the code defines no envoy_on_" .. phase)
local ok, err = coroutine.resume(coroutine.create(entry), handle)
if not ok then
  io.stderr:write("script error: ", tostring(err), "\n")
  os.exit(1)
end
