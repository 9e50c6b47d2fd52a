/**
 * The server most tutorials write: Express and the official SDK 1.x's Streamable HTTP transport, one session
 * per client (`mcp-session-id`), a tool `add`. Listens on port 0; the preload reports the port.
 */
import { randomUUID } from "node:crypto";
import express from "express";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

function newServer(): McpServer {
  const server = new McpServer({ name: "express-sdk-interop", version: "1.0.0" });
  server.registerTool("add", { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
  }));
  return server;
}

const transports = new Map<string, StreamableHTTPServerTransport>();
const app = express();
app.use(express.json());
app.post("/mcp", async (req, res) => {
  const id = req.header("mcp-session-id");
  let transport = id ? transports.get(id) : undefined;
  if (!transport && !id && isInitializeRequest(req.body)) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sid) => void transports.set(sid, transport!),
    });
    transport.onclose = () => transport?.sessionId && transports.delete(transport.sessionId);
    await newServer().connect(transport);
  }
  if (!transport) {
    res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "no valid session" }, id: null });
    return;
  }
  await transport.handleRequest(req, res, req.body);
});
const bySession = async (req: express.Request, res: express.Response) => {
  const transport = transports.get(req.header("mcp-session-id") ?? "");
  if (!transport) {
    res.status(400).send("no valid session");
    return;
  }
  await transport.handleRequest(req, res);
};
app.get("/mcp", bySession);
app.delete("/mcp", bySession);
app.listen(0);
