/**
 * A tiny Mastra `MCPServer` (`add`, made with `createTool`): stdio, or Streamable HTTP with `--http` on a
 * node:http server (port 0; the preload reports it). Mastra's server speaks 2026-07-28 only.
 */
import { createServer } from "node:http";
import { createTool } from "@mastra/core/tools";
import { MCPServer } from "@mastra/mcp";
import { z } from "zod";

const add = createTool({
  id: "add",
  description: "Add two numbers",
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});
const server = new MCPServer({ id: "mastra-interop", name: "mastra-interop", version: "1.0.0", tools: { add } });

if (process.argv.includes("--http")) {
  const http = createServer(
    (req, res) => void server.startHTTP({ url: new URL(req.url ?? "/", "http://127.0.0.1"), httpPath: "/mcp", req, res }),
  );
  http.listen(0);
} else {
  await server.startStdio();
}
