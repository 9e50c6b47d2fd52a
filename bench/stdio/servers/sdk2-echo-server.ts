/** The v2 SDK 2.4.0's MCP server with one `echo` tool, on stdin/stdout (benchmark peer). */
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its text argument.", inputSchema: z.object({ text: z.string() }) },
  async ({ text }) => ({
    content: [{ type: "text" as const, text }],
  }),
);
process.stdin.on("end", () => process.exit(0));
await server.connect(new StdioServerTransport());
