/**
 * The loop benchmark's tool: a minimal MCP server over stdio, hand-written so its own cost is tiny and
 * known. It offers one `echo` tool and times each tools/call from the moment its line arrives to the moment
 * the answer is written; at the end of stdin it writes those durations (ms, one a line) to the file named by
 * BENCH_TOOL_TIMES. Both frameworks under test spawn this same server.
 */
import { appendFileSync } from "node:fs";

const TOOL = {
  name: "echo",
  description: "Returns its text argument.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};
const durations: number[] = [];
const out = Bun.stdout.writer();

function answer(m: { id?: string | number; method?: string; params?: Record<string, unknown> }): unknown {
  switch (m.method) {
    case "initialize":
      // Always 2025-11-25: both clients accept it, and it keeps the session model the same for both.
      return { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "bench-tool", version: "1.0.0" } };
    case "tools/list":
      return { tools: [TOOL] };
    case "tools/call":
      return { content: [{ type: "text", text: String((m.params?.arguments as { text?: unknown } | undefined)?.text) }] };
    case "ping":
      return {};
    default:
      return undefined;
  }
}

const decoder = new TextDecoder();
let buf = "";
for await (const chunk of Bun.stdin.stream()) {
  const t0 = performance.now();
  buf += decoder.decode(chunk, { stream: true });
  let nl: number;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl).trim();
    buf = buf.slice(nl + 1);
    if (!line) continue;
    const m = JSON.parse(line) as { id?: string | number; method?: string; params?: Record<string, unknown> };
    if (m.id === undefined || m.method === undefined) continue; // notifications and responses
    const result = answer(m);
    out.write(
      `${JSON.stringify(result === undefined ? { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `unknown method ${m.method}` } } : { jsonrpc: "2.0", id: m.id, result })}\n`,
    );
    out.flush();
    if (m.method === "tools/call") durations.push(performance.now() - t0);
  }
}
const file = process.env.BENCH_TOOL_TIMES;
if (file) appendFileSync(file, durations.map((d) => `${d}\n`).join(""));
process.exit(0);
