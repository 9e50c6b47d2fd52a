/**
 * A Streamable HTTP MCP server in its own process, for `../schemas-on-first-use.test.ts`, built from the SDK's
 * server-only entries as the benchmark's server is, with one `echo` tool. Prints `{"url":…}` once it listens,
 * then answers each line on stdin with the wire schema modules it has loaded so far (`wire/schemas/NAME.ts`,
 * sorted), one JSON line; exits when stdin closes.
 * A process of its own, because a test process shares its modules with every other test file.
 */
import { McpServer } from "../../mcp/server/index.ts";
import { createStreamableHttpServer } from "../../transport/http-server/index.ts";

const mcp = new McpServer({ name: "schemas", version: "1.0.0" });
mcp.tool({ name: "echo", description: "Echoes.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args) => ({
  content: [{ type: "text", text: String(args.text) }],
}));
const server = await createStreamableHttpServer({
  hostname: "127.0.0.1",
  port: 0,
  onsession(transport) {
    void mcp.connect(transport);
  },
});
console.log(JSON.stringify({ url: server.url.href }));
const dir = "/packages/sdk/src/wire/schemas/";
for await (const _line of console) {
  const modules = Object.keys(require.cache)
    .filter((path) => path.includes(dir))
    .map((path) => path.slice(path.indexOf(dir) + dir.length))
    .sort();
  console.log(JSON.stringify({ modules }));
}
await server.close();
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));
