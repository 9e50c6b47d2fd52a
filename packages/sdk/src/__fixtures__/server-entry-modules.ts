/**
 * A process that builds an MCP server over Streamable HTTP from the two entries named on its command line
 * (`server` for `@agentd/sdk/mcp/server` + `@agentd/sdk/transport/http-server`, `wide` for `@agentd/sdk/mcp` +
 * `@agentd/sdk/transport`), opens one session on it (initialize, then notifications/initialized, over
 * loopback HTTP), and prints which of the SDK's modules it has loaded by then: server-entries.test.ts checks
 * that a server built from the server-only entries loads none of the client's.
 */
const [mcpEntry, transportEntry] =
  process.argv[2] === "wide"
    ? ["@agentd/sdk/mcp", "@agentd/sdk/transport"]
    : ["@agentd/sdk/mcp/server", "@agentd/sdk/transport/http-server"];
const { McpServer } = (await import(mcpEntry as string)) as typeof import("@agentd/sdk/mcp/server");
const { createStreamableHttpServer } = (await import(transportEntry as string)) as typeof import("@agentd/sdk/transport/http-server");

const mcp = new McpServer({ name: "server-only", version: "1.0.0" });
mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }, () => ({ content: [] }));
const server = await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  responseMode: "json",
  onsession(transport) {
    void mcp.connect(transport);
  },
});

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const post = (body: unknown, session?: string) =>
  fetch(server.url, {
    method: "POST",
    headers: session ? { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : headers,
    body: JSON.stringify(body),
  });
const init = await post({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
});
await init.body?.cancel();
const session = init.headers.get("mcp-session-id") ?? undefined;
const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
await initialized.body?.cancel();

const modules = Object.keys(require.cache)
  .filter((path) => path.includes("/packages/sdk/src/"))
  .map((path) => path.slice(path.indexOf("/packages/sdk/src/") + "/packages/sdk/src/".length))
  .sort();
await server.close();
process.stdout.write(`${JSON.stringify({ status: [init.status, initialized.status], session: session !== undefined, modules })}\n`);
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));

// The entries are imported dynamically (chosen by argv): this marks the file as a module for its top-level awaits.
export {};
