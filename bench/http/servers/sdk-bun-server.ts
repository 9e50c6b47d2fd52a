/**
 * The official SDK 1.32.2's web-standard Streamable HTTP transport under `Bun.serve` on 127.0.0.1: one
 * transport and one `McpServer` (with the `echo` tool) per session, as the SDK requires.
 * `bun sdk-bun-server.ts json|sse`; prints `{"port":N}`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";
import { serveControl } from "../../lib/server-control.ts";

const json = process.argv[2] === "json";
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

/**
 * Bun.serve sends no headers before the first body byte, and the SDK's GET stream writes none until there
 * is something to say: put a comment in front so the client sees the stream open.
 */
function primed(res: Response): Response {
  if (!res.body || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res;
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(new TextEncoder().encode(": open\n\n")),
    async pull(c) {
      const { value, done } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(req) {
    const sid = req.headers.get("mcp-session-id");
    if (sid !== null) {
      const transport = sessions.get(sid);
      if (!transport)
        return Response.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, { status: 404 });
      const res = await transport.handleRequest(req);
      return req.method === "GET" ? primed(res) : res;
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await newServer().connect(transport);
    return transport.handleRequest(req);
  },
});
serveControl({ port: server.port }, () => server.stop(true));
