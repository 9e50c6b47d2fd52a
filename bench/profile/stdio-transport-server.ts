/**
 * Profiling aid (not part of `bun bench/run.ts`), for `stdio-ab-worker.ts`: agentd's `StdioServerTransport`
 * with the least server's canned answers (`stdio-min-server.ts`) on it instead of an `McpServer`: what the
 * server's stdio transport alone costs per request, so the server's share of a round trip can be split
 * between its transport and the MCP layer above it. Loads the transport of the tree it sits in.
 */
import { StdioServerTransport } from "../../packages/sdk/src/transport/index.ts";

const TOOL = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } };
const t = new StdioServerTransport();
t.onmessage = (message) => {
  const m = message as { id?: number; method: string; params?: { arguments?: { text?: string } } };
  if (m.id === undefined) return;
  const result =
    m.method === "initialize"
      ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "min", version: "1.0.0" } }
      : m.method === "tools/list"
        ? { tools: [TOOL] }
        : { content: [{ type: "text", text: m.params?.arguments?.text }] };
  void t.send({ jsonrpc: "2.0", id: m.id, result } as never);
};
t.onclose = () => process.exit(0);
await t.start();
