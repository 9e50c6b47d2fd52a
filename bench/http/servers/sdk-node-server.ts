/**
 * The official SDK 1.32.2's Node Streamable HTTP transport under `node:http` on 127.0.0.1: one transport and
 * one `McpServer` (with the `echo` tool) per session. Built for Node by the benchmark (`bun build
 * --target=node`, packages external) and run with `node --expose-gc`. Argument: `json|sse`.
 */
import { createServer, type IncomingMessage } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import { serveControl } from "../../lib/server-control.ts";

const json = process.argv[2] === "json";
const sessions = new Map<string, StreamableHTTPServerTransport>();

function newServer(): McpServer {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool("echo", { description: "Returns its text argument.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
}

const server = createServer(async (req, res) => {
  try {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const transport = sessions.get(sid);
      if (!transport) {
        res
          .writeHead(404, { "content-type": "application/json" })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await newServer().connect(transport);
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500).end(String(e));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  serveControl(
    { port: typeof address === "object" && address ? address.port : 0 },
    () => new Promise<void>((r) => server.close(() => r())),
  );
});
