/**
 * A Streamable HTTP MCP server in its own process, for `../revision-tables.test.ts`: prints `{"url":…}` once
 * it listens, then answers each line on stdin with the revisions whose method tables it has built so far;
 * exits when stdin closes.
 * A process of its own, because a test process shares its modules (and so its built tables) with every
 * other test file.
 */
import { McpServer } from "../../mcp/index.ts";
import { createStreamableHttpServer } from "../../transport/index.ts";
import { builtRevisionTables } from "../schemas/method-table.ts";

const mcp = new McpServer({ name: "tables", version: "1.0.0" });
mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object" } }, () => ({ content: [] }));
const server = await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  onsession(transport) {
    void mcp.connect(transport);
  },
});
console.log(JSON.stringify({ url: server.url.href }));
for await (const _line of console) console.log(JSON.stringify({ built: builtRevisionTables() }));
// stdin closed: the test is done with us. Nothing here outlives the process.
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));
