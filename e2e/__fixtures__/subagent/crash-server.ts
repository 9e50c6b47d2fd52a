/**
 * Test fixture: an MCP server on stdio whose `crash` tool kills the process that started it (a subagent
 * child) with SIGKILL — a real crash, no test hook in agentd. `crash-server.ts once <dir>` crashes only the
 * first time (a marker file in <dir>), then answers "survived"; `always` crashes every time. Every call's
 * run id (from `_meta`) is appended to <dir>/calls.jsonl, so a test can tell a retry from new work.
 */
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpServer, RUN_ID_META_KEY } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const [mode, dir] = process.argv.slice(2);
if ((mode !== "once" && mode !== "always") || !dir) throw new Error("usage: crash-server.ts once|always <dir>");
const marker = join(dir, "crashed");

const server = new McpServer({ name: "crashy", version: "1.0.0" });
server.tool({ name: "crash", description: "Crash the agent that calls this", inputSchema: { type: "object" } }, (_args, ctx) => {
  const runId = ctx.meta[RUN_ID_META_KEY];
  appendFileSync(join(dir, "calls.jsonl"), `${JSON.stringify({ runId, pid: process.ppid })}\n`);
  if (mode === "always" || !existsSync(marker)) {
    writeFileSync(marker, "");
    process.kill(process.ppid, "SIGKILL");
    return new Promise(() => {});
  }
  return { content: [{ type: "text", text: "survived" }] };
});

const transport = new StdioServerTransport();
const session = await server.connect(transport);
await new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
process.exit(0);
