/**
 * An MCP server on the Streamable HTTP server with default options (the Bun adapter, no proxy, no TLS, no
 * bearer tokens), in its own process for `../lazy-builtins.test.ts`. Prints `{"url":…}` once it listens;
 * then each stdin line is a command, answered with one JSON line:
 * - `measure`: resident memory after a settled full GC, and which of the SDK's modules are loaded;
 * - `load`: loads Node's http, https, net, tls, crypto and child_process modules, then measures as above.
 * Exits when stdin closes.
 */
import { readFileSync } from "node:fs";
import { McpServer } from "../../../mcp/index.ts";
// The public entries, as an application imports them (the transport's also holds the stdio and client parts).
import { createStreamableHttpServer } from "../../index.ts";

const mcp = new McpServer({ name: "lazy", version: "1.0.0" });
mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }, () => ({ content: [] }));
await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  onsession(transport) {
    void mcp.connect(transport);
  },
}).then((server) => console.log(JSON.stringify({ url: server.url.href })));

async function measure(): Promise<{ rssKb: number; modules: string[] }> {
  // Collect until the resident size stops shrinking (freed pages go back to the system in steps).
  let rssKb = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    Bun.gc(true);
    await Bun.sleep(20);
    const now = Number(/VmRSS:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1]);
    if (rssKb - now < 256) return { rssKb: Math.min(rssKb, now), modules: Object.keys(require.cache) };
    rssKb = now;
  }
  return { rssKb, modules: Object.keys(require.cache) };
}

for await (const line of console) {
  if (line === "load")
    await Promise.all(["node:http", "node:https", "node:net", "node:tls", "node:crypto", "node:child_process"].map((m) => import(m)));
  console.log(JSON.stringify(await measure()));
}
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));
