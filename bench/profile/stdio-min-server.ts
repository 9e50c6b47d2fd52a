/**
 * Profiling aid (not part of `bun bench/run.ts`), for `stdio-ab-worker.ts`: the least an MCP server over stdio
 * can do, so a client's cost can be told from a server's. It reads NDJSON from stdin as the raw echo does,
 * answers `initialize`, `tools/list` (one `echo` tool) and `tools/call` (echoing `text`) with canned JSON,
 * and ignores notifications. No validation, no MCP layer: a floor for the server's side, not a server.
 */
export {};

const out = Bun.stdout.writer();
const decoder = new TextDecoder();
const TOOL = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } };
let buf = "";
for await (const chunk of Bun.stdin.stream()) {
  buf += decoder.decode(chunk, { stream: true });
  let nl: number;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    const m = JSON.parse(line) as { id?: number; method: string; params?: { arguments?: { text?: string } } };
    if (m.id === undefined) continue;
    const result =
      m.method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "min", version: "1.0.0" } }
        : m.method === "tools/list"
          ? { tools: [TOOL] }
          : { content: [{ type: "text", text: m.params?.arguments?.text }] };
    out.write(`${JSON.stringify({ jsonrpc: "2.0", id: m.id, result })}\n`);
  }
  out.flush();
}
