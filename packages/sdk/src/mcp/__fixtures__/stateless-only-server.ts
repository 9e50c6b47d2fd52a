/**
 * An MCP server that speaks only stateless revisions, the way Mastra's `MCPServer` 2.0 does: the official
 * v2 SDK (`@modelcontextprotocol/server` 2.4) serves `server/discover` and the tools, and `initialize` is
 * refused with -32022 "Unsupported protocol version" and `data.supported` (the SDK itself would answer it).
 *
 * `bun stateless-only-server.ts` serves stdio; `--http` serves Streamable HTTP on 127.0.0.1 (port 0) and
 * prints its URL as the first stdout line. `SUPPORTED` (comma-separated) overrides the revisions listed in
 * the refusal, for the case with none in common. Tool: `add`.
 */
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const supported = (process.env.SUPPORTED ?? "2026-07-28").split(",");

function build(): McpServer {
  const server = new McpServer({ name: "stateless-only", version: "2.4.0" }, { capabilities: { tools: {} } });
  const numbers = fromJsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
  server.registerTool("add", { description: "Adds", inputSchema: numbers }, async (args) => {
    const { a, b } = args as { a: number; b: number };
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  return server;
}

/** The refusal of `initialize` request `id` asking for `requested`. */
const refusal = (id: unknown, requested: unknown) => ({
  jsonrpc: "2.0" as const,
  id,
  error: { code: -32022, message: "Unsupported protocol version", data: { supported, requested } },
});

/** A stdio transport that answers `initialize` itself with the refusal; everything else passes through. */
class RefusingStdio extends StdioServerTransport {
  constructor() {
    super();
    let deliver: ((message: never) => void) | undefined;
    // Whoever installs the handler (and whenever), `initialize` never reaches it.
    Object.defineProperty(this, "onmessage", {
      get: () => (message: never) => {
        const m = message as { id?: unknown; method?: string; params?: { protocolVersion?: unknown } };
        if (m.method === "initialize") void this.send(refusal(m.id, m.params?.protocolVersion) as never);
        else deliver?.(message);
      },
      set: (fn) => (deliver = fn),
    });
  }
}

if (process.argv.includes("--http")) {
  const handler = createMcpHandler(build);
  const bun = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method === "POST") {
        const body = (await req
          .clone()
          .json()
          .catch(() => null)) as { id?: unknown; method?: string; params?: { protocolVersion?: unknown } } | null;
        if (body?.method === "initialize") return Response.json(refusal(body.id, body.params?.protocolVersion), { status: 400 });
      }
      return handler.fetch(req);
    },
  });
  console.log(`http://127.0.0.1:${bun.port}/mcp`);
} else {
  serveStdio(build, { transport: new RefusingStdio() });
}
