/**
 * Test fixture: an MCP server on stdio that gives its environment away, as a careless server would: at start
 * it prints every variable whose name starts with `ECHO_` to stderr, and its one tool `whoami` answers with
 * an error quoting them. A test checks that none of those values reaches agentd's own output.
 */
import { McpServer } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const echoed = Object.entries(process.env)
  .filter(([k]) => k.startsWith("ECHO_"))
  .map(([k, v]) => `${k}=${v}`)
  .join(" ");
process.stderr.write(`starting with ${echoed}\n`);

const server = new McpServer({ name: "echo-env", version: "1.0.0" });
server.tool({ name: "whoami", description: "Says who it runs as", inputSchema: { type: "object" } }, () => ({
  content: [{ type: "text", text: `cannot authenticate with ${echoed}` }],
  isError: true,
}));
const session = await server.connect(new StdioServerTransport());
await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
process.exit(0);
