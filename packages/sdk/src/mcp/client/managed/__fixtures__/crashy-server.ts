/**
 * Test fixture: a small MCP server that can be told to crash, run as a real process.
 *
 *   bun crashy-server.ts stdio <dir>         serve on stdin/stdout
 *   bun crashy-server.ts http <dir> <port>   serve Streamable HTTP on 127.0.0.1:<port>; prints "LISTENING <url>" on stderr
 *
 * State lives in <dir>, so it outlives the process: `resource.txt` is the content of `test://resource`
 * (a test may rewrite it while the server is down); while a file `down` exists the process exits at once
 * (a server that cannot come back yet); each process appends its pid to `pids`; every tools/call is
 * appended to `calls.jsonl` with its `_meta`, so a test can count executions.
 *
 * `test://slow` records each read in `calls.jsonl` (as `read-slow`) and never answers while a file `hold`
 * exists (a request the test can be sure is in flight).
 *
 * Tools: `echo {text}`, `crash` (exit 1 mid-call), `set {text}` (write the resource and notify
 * subscribers), `bump` (a non-idempotent counter).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, dir, port] = process.argv.slice(2) as [string, string, string | undefined];
if (existsSync(join(dir, "down"))) process.exit(1);
appendFileSync(join(dir, "pids"), `${process.pid}\n`);
// Imported only now, so a server that is "down" exits before loading anything (attempts stay cheap).
const { McpServer } = await import("../../../server/server.ts");

const RESOURCE = "test://resource";
const resourceFile = join(dir, "resource.txt");
const read = () => (existsSync(resourceFile) ? readFileSync(resourceFile, "utf8") : "");

const server = new McpServer({ name: "crashy", version: "1.0.0" });
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const record = (name: string, ctx: { meta: Record<string, unknown> }) =>
  appendFileSync(join(dir, "calls.jsonl"), `${JSON.stringify({ name, pid: process.pid, meta: ctx.meta })}\n`);

server.tool({ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }, (args, ctx) => {
  record("echo", ctx);
  return text(String(args.text ?? ""));
});
server.tool({ name: "crash" }, (_args, ctx) => {
  record("crash", ctx);
  process.exit(1);
});
server.tool({ name: "bump" }, (_args, ctx) => {
  record("bump", ctx);
  return text("bumped");
});
server.tool(
  { name: "set", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  async (args, ctx) => {
    record("set", ctx);
    writeFileSync(resourceFile, String(args.text));
    await server.notifyResourceUpdated(RESOURCE);
    return text("ok");
  },
);
server.resource({ uri: RESOURCE, name: "resource", mimeType: "text/plain" }, () => ({
  contents: [{ uri: RESOURCE, mimeType: "text/plain", text: read() }],
}));
server.resource({ uri: "test://slow", name: "slow" }, async (_uri, ctx) => {
  record("read-slow", ctx);
  if (existsSync(join(dir, "hold"))) await new Promise(() => {});
  return { contents: [{ uri: "test://slow", text: "slow" }] };
});

if (mode === "stdio") {
  const { StdioServerTransport } = await import("../../../../transport/stdio-self.ts");
  await server.connect(new StdioServerTransport());
} else {
  const { createStreamableHttpServer } = await import("../../../../transport/http-server/index.ts");
  const http = await createStreamableHttpServer({
    hostname: "127.0.0.1",
    port: Number(port ?? 0),
    onsession: async (transport) => {
      await server.connect(transport);
    },
  });
  process.stderr.write(`LISTENING ${http.url.href}\n`);
}
