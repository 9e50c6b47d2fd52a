/** agentd's MCP server with one `echo` tool, on stdin/stdout (benchmark subject). */
import { McpServer } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
server.tool(
  {
    name: "echo",
    description: "Returns its text argument.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  },
  (args) => ({ content: [{ type: "text", text: String(args.text) }] }),
);
const session = await server.connect(new StdioServerTransport());
await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
process.exit(0);
