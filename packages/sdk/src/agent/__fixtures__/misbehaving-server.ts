/**
 * Test fixture: a stdio MCP server that misbehaves in one way (argv: MODE), answering by hand on raw
 * stdin/stdout so nothing in our own stack tidies the fault up.
 * - `die-at-start`: writes three lines on stderr and exits with code 3 before reading anything;
 * - `bad-tools-list`: a normal handshake, then a `tools/list` result whose `tools` is not an array;
 * - `oversize`: a normal handshake and tool list, then answers `tools/call` with a 5 MiB frame (id last).
 */
const mode = process.argv[2];
if (mode === "die-at-start") {
  process.stderr.write("starting misbehaving server\nloading settings from /nonexistent/settings.toml\nfatal: settings file not found\n");
  process.exit(3);
}
const send = (m: unknown) => process.stdout.write(`${JSON.stringify(m)}\n`);
const TOOL = { name: "big", description: "Returns a lot", inputSchema: { type: "object", properties: {} } };
let buffer = "";
process.stdin.on("data", (chunk: Buffer) => {
  buffer += chunk.toString("utf8");
  for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line) as { id?: number | string; method?: string; params?: { protocolVersion?: string } };
    if (m.id === undefined || !m.method) continue;
    if (m.method === "initialize")
      send({
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "misbehaving", version: "1.0.0" },
        },
      });
    else if (m.method === "tools/list")
      send({ jsonrpc: "2.0", id: m.id, result: mode === "bad-tools-list" ? { tools: "not a list" } : { tools: [TOOL] } });
    // The official TypeScript SDK's key order: the id comes last, after the 5 MiB.
    else if (m.method === "tools/call")
      send({ result: { content: [{ type: "text", text: "x".repeat(5 * 1024 * 1024) }] }, jsonrpc: "2.0", id: m.id });
    else if (m.method === "ping") send({ jsonrpc: "2.0", id: m.id, result: {} });
    else send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  }
});
