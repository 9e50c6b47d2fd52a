/** agentd's MCP server with one `echo` tool, on stdin/stdout (benchmark subject). */
import { McpServer } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";
import { ECHO_TOOL, echo } from "../../lib/echo-tool.ts";

const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
server.tool(ECHO_TOOL, echo);
const session = await server.connect(new StdioServerTransport());
await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
process.exit(0);
