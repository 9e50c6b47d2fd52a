/**
 * Test fixture: an MCP server on stdio (built on the official SDK) that offers one resource,
 * `file-watch://state`, whose content is the file named by argv[2] — and that does NOT declare
 * `resources.subscribe`. A subscription trigger on it is unavailable unless it polls.
 */
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const file = process.argv[2];
if (!file) throw new Error("usage: file-resource-server.ts <state-file>");

const server = new McpServer({ name: "file-resource", version: "1.0.0" });
server.registerResource("state", "file-watch://state", { mimeType: "text/plain" }, (uri) => ({
  contents: [{ uri: uri.href, mimeType: "text/plain", text: readFileSync(file, "utf8") }],
}));
await server.connect(new StdioServerTransport());
