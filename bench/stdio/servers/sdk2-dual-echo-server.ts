/** The v2 SDK 2.4.0's MCP server with one `echo` tool, served dual-era by `serveStdio` (2026-07-28 peer). */
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Returns its text argument.", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({
      content: [{ type: "text" as const, text }],
    }),
  );
  return server;
});
process.stdin.on("end", () => process.exit(0));
