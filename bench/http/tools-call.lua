-- wrk script: POST an echo tools/call to a Streamable HTTP MCP endpoint, round-robin over sessions that
-- were initialized beforehand (their ids are the script arguments, comma-separated). Each thread numbers
-- its JSON-RPC ids from its own offset, so no two requests in flight share an id within a session.
--   wrk -t2 -c64 -d5s -s tools-call.lua http://127.0.0.1:PORT/mcp -- sid1,sid2,...

local thread_count = 0
function setup(thread)
  thread:set("offset", thread_count * 100000000)
  thread_count = thread_count + 1
end

local sessions = {}
local counter = 0

function init(args)
  for sid in string.gmatch(args[1] or "", "[^,]+") do
    table.insert(sessions, sid)
  end
  counter = offset or 0
end

function request()
  counter = counter + 1
  local headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-11-25",
  }
  if #sessions > 0 then
    headers["Mcp-Session-Id"] = sessions[(counter % #sessions) + 1]
  end
  local body = '{"jsonrpc":"2.0","id":' .. counter ..
    ',"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}'
  return wrk.format("POST", nil, headers, body)
end
