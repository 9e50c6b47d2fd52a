/**
 * An official v2 SDK server (`@modelcontextprotocol/server` 2.4, `createMcpHandler`: 2026-07-28 per request,
 * stateless 2025 fallback) under `Bun.serve` on 127.0.0.1, for tests of our HTTP client against an independent
 * implementation of the stateless transport (it checks `Mcp-Method`/`Mcp-Name` and `Mcp-Param-*` headers).
 * Tool `locate` mirrors its `region` argument into `Mcp-Param-Region` and `shard` into `Mcp-Param-Shard`.
 */
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";

/** A running v2 HTTP server. */
export interface V2HttpServer {
  url: URL;
  close(): Promise<void>;
}

/** Start the server on an ephemeral loopback port. */
export function startV2HttpServer(): V2HttpServer {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "v2-http", version: "2.4.0" }, { capabilities: { tools: {} } });
    // The SDK's JSON Schema type does not list the `x-mcp-header` keyword its runtime honours.
    const json = {
      type: "object",
      properties: {
        region: { type: "string", "x-mcp-header": "Region" },
        shard: { type: "integer", "x-mcp-header": "Shard" },
        query: { type: "string" },
      },
      required: ["region", "query"],
    } as unknown as Parameters<typeof fromJsonSchema>[0];
    const schema = fromJsonSchema(json);
    server.registerTool("locate", { description: "Runs a query in a region", inputSchema: schema }, async (args) => {
      const a = args as { region: string; shard?: number; query: string };
      return { content: [{ type: "text", text: `${a.query}@${a.region}/${a.shard ?? "-"}` }] };
    });
    return server;
  });
  const bun = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => handler.fetch(req) });
  return {
    url: new URL(`http://127.0.0.1:${bun.port}/mcp`),
    close: async () => {
      await bun.stop(true);
    },
  };
}
