/**
 * Profiling aid (not part of `bun bench/run.ts`): CPU per sequential echo `tools/call` of agentd's `McpClient`
 * alone, against a transport that answers each request on a microtask with a canned result (what
 * `JSON.parse` of a server's line would give: a fresh object every time). No server, no framing, no
 * syscall: the client's own request path (the pending record, `_meta`, the codec's result check, the
 * promise hops), which over stdio sits on the round trip twice over (sending and receiving). Loads the SDK
 * of the tree at ROOT, so two trees can be compared:
 *
 *   bun bench/profile/client-path-cpu.ts [ROOT=.] [CALLS=200000]      (WARM=20000 warm-up calls first)
 */
import { join, resolve } from "node:path";

const [root = ".", count = "200000"] = process.argv.slice(2);
const mcp = (await import(join(resolve(root), "packages/sdk/src/mcp/index.ts"))) as typeof import("@agentd/sdk/mcp");

type Message = { id?: number; method?: string; params?: { arguments?: { text?: string } } };
const TOOL = { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } };

/** Answers like `stdio-min-server.ts`, in process. */
class CannedServer {
  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  async start(): Promise<void> {}
  async send(message: unknown): Promise<void> {
    const m = message as Message;
    if (m.id === undefined) return;
    const id = m.id;
    const result =
      m.method === "initialize"
        ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "canned", version: "1.0.0" } }
        : m.method === "tools/list"
          ? { tools: [TOOL] }
          : undefined;
    const text = m.params?.arguments?.text;
    queueMicrotask(() => this.onmessage?.({ jsonrpc: "2.0", id, result: result ?? { content: [{ type: "text", text }] } }));
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

const client = new mcp.McpClient({ name: "profile-client", version: "1.0.0" });
await client.connect(new CannedServer() as never);
const ARGS = { text: "hello" };
const calls = Number(count);
for (let i = 0; i < Number(process.env.WARM ?? 20_000); i++) await client.callTool("echo", ARGS);
const before = process.cpuUsage();
for (let i = 0; i < calls; i++) {
  const r = await client.callTool("echo", ARGS);
  if ((r.content as Array<{ text?: string }>)[0]?.text !== "hello") throw new Error("echo answered wrong");
}
const used = process.cpuUsage(before);
console.log(JSON.stringify({ cpuUsPerCall: (used.user + used.system) / calls }));
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));
