/**
 * Indicative (not part of `bench/run.ts`): echo tools/call round trips over Streamable HTTP on 127.0.0.1, one in
 * flight, at MCP 2025-11-25 (a session) beside 2026-07-28 (stateless: a POST each, no session), for agentd's
 * client and server and the official v2 SDK's (`@modelcontextprotocol/client` / `server` 2.4.0,
 * `createMcpHandler`). Client and server share one Bun process, so this compares paths, not deployments.
 * Usage: `bun bench/http/modern-roundtrip.ts [calls]`; prints p50/p99 µs and the negotiated revision.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, fromJsonSchema, McpServer as V2Server } from "@modelcontextprotocol/server";
import { McpServer } from "../../packages/sdk/src/mcp/server/server.ts";
import { McpClient } from "../../packages/sdk/src/mcp/client/client.ts";
import { createStreamableHttpServer } from "../../packages/sdk/src/transport/http-server/index.ts";
import { StreamableHttpClientTransport } from "../../packages/sdk/src/transport/http-client/streamable-http-client.ts";

const calls = Number(process.argv[2] ?? 500);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

async function time(label: string, version: string, call: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < Math.min(50, calls); i++) await call();
  const us: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await call();
    us.push((performance.now() - t0) * 1000);
  }
  console.log(`${label.padEnd(44)} ${version}  p50 ${pct(us, 0.5).toFixed(0)} µs  p99 ${pct(us, 0.99).toFixed(0)} µs`);
}

const ours = new McpServer({ name: "bench", version: "1" });
ours.tool({ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (a) => ({
  content: [{ type: "text", text: String(a.text) }],
}));
const oursHttp = await createStreamableHttpServer({ onsession: async (t) => void (await ours.connect(t)) });

const v2Handler = createMcpHandler(() => {
  const s = new V2Server({ name: "v2", version: "2.4.0" }, { capabilities: { tools: {} } });
  s.registerTool(
    "echo",
    { description: "echo", inputSchema: fromJsonSchema({ type: "object", properties: { text: { type: "string" } } }) },
    async (a) => ({
      content: [{ type: "text", text: String((a as { text: string }).text) }],
    }),
  );
  return s;
});
const v2Http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => v2Handler.fetch(r) });
const v2Url = new URL(`http://127.0.0.1:${v2Http.port}/mcp`);

for (const mode of ["legacy", "auto"] as const) {
  const c = new McpClient({ name: "bench", version: "0" }, { versionNegotiation: mode });
  await c.connect(new StreamableHttpClientTransport(oursHttp.url));
  await time(`agentd client → agentd server (${mode})`, c.protocolVersion!, () => c.callTool("echo", { text: "hello" }));
  await c.close();
}
{
  const c = new Client({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
  await c.connect(new StreamableHTTPClientTransport(oursHttp.url));
  await time("v2 client (auto) → agentd server", c.getNegotiatedProtocolVersion()!, () =>
    c.callTool({ name: "echo", arguments: { text: "hello" } }),
  );
  await c.close();
}
for (const mode of ["legacy", "auto"] as const) {
  const c = new Client({ name: "v2", version: "2.4.0" }, { versionNegotiation: { mode } });
  await c.connect(new StreamableHTTPClientTransport(v2Url));
  await time(`v2 client (${mode}) → v2 server`, c.getNegotiatedProtocolVersion()!, () =>
    c.callTool({ name: "echo", arguments: { text: "hello" } }),
  );
  await c.close();
}
{
  const c = new McpClient({ name: "bench", version: "0" }, { versionNegotiation: "auto" });
  await c.connect(new StreamableHttpClientTransport(v2Url));
  await time("agentd client (auto) → v2 server", c.protocolVersion!, () => c.callTool("echo", { text: "hello" }));
  await c.close();
}
await oursHttp.close();
await ours.close();
await v2Http.stop(true);
process.exit(0);
