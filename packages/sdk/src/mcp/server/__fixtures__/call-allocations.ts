/**
 * Child process of `per-call-allocations.test.ts`: counts what the server's MCP layer allocates per
 * `tools/call` of a synchronous tool, by type, and prints `{"perCall":{…}}`. JSC counts every cell made
 * since the last collection as live, so `heapStats().objectTypeCounts` across calls made without one in
 * between is what they allocated. Run with `BUN_JSC_useJIT=0`: the interpreter allocates everything the
 * code asks for, where the optimising tiers drop some allocations and not others from run to run, so the
 * counts are the same every time. The tool answers one shared result, so only the layer's own objects count.
 */
import { heapStats } from "bun:jsc";
import { SENT, type TransportPeer } from "../../../transport/types.ts";
import { classify } from "../../../wire/jsonrpc.ts";
import { McpServer } from "../server.ts";

const CALLS = 100;
const RESULT = { content: [{ type: "text" as const, text: "hello" }] };

/** A transport handing messages to its peer directly; `onReply` runs on each reply. */
class DirectTransport {
  peer!: TransportPeer;
  readonly sessionId = "census";
  onReply: (() => void) | undefined;
  last: unknown;
  attach(peer: TransportPeer): void {
    this.peer = peer;
  }
  async start(): Promise<void> {}
  send(message: unknown): Promise<void> {
    this.last = message;
    this.onReply?.();
    return SENT;
  }
  async close(): Promise<void> {}
  setProtocolVersion(): void {}
}

const server = new McpServer({ name: "census", version: "1.0.0" });
const inputSchema = { type: "object" as const, properties: { text: { type: "string" } }, required: ["text"] };
server.tool({ name: "echo", description: "Answers at once.", inputSchema }, () => RESULT);
const transport = new DirectTransport();
await server.connect(transport as never);
/** Resolves when the server next sends something (an answer): the handshake waits on answers, not on time. */
function nextReply(): Promise<void> {
  return new Promise((resolve) => {
    transport.onReply = () => {
      transport.onReply = undefined;
      resolve();
    };
  });
}
let replied = nextReply();
transport.peer.receive({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "census", version: "1.0.0" } },
});
await replied;
// A ping after the notification: its answer means the notification before it was handled.
transport.peer.receive({ jsonrpc: "2.0", method: "notifications/initialized" });
replied = nextReply();
transport.peer.receive({ jsonrpc: "2.0", id: "handshake-ping", method: "ping" });
await replied;

let nextId = 1;
/** Calls as an HTTP POST hands them over (parsed, classified, with the session's extra), made before counting. */
function prepare(n: number): Array<[unknown, unknown]> {
  const out: Array<[unknown, unknown]> = [];
  for (let i = 0; i < n; i++) {
    const m: unknown = JSON.parse(
      `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
    );
    out.push([m, { sessionId: "census", authInfo: undefined, classified: classify(m) }]);
  }
  return out;
}

/** The calls one after another, each started from a microtask once the previous one was answered. */
function run(batch: Array<[unknown, unknown]>): Promise<void> {
  return new Promise((resolve) => {
    let i = 0;
    const next = () => {
      if (i === batch.length) {
        transport.onReply = undefined;
        return resolve();
      }
      const [m, extra] = batch[i++] as [unknown, unknown];
      transport.peer.receive(m, extra as never);
    };
    const queued = () => queueMicrotask(next);
    transport.onReply = queued;
    next();
  });
}

async function census(n: number): Promise<Record<string, number>> {
  const batch = prepare(n);
  Bun.gc(true);
  const before = { ...heapStats().objectTypeCounts } as Record<string, number>;
  await run(batch);
  const after = { ...heapStats().objectTypeCounts } as Record<string, number>;
  const d: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) d[k] = (after[k] ?? 0) - (before[k] ?? 0);
  return d;
}

await run(prepare(300));
if ((transport.last as { result?: unknown }).result !== RESULT) throw new Error(`unexpected answer: ${JSON.stringify(transport.last)}`);
const overhead = await census(0);
const counted = await census(CALLS);
const perCall: Record<string, number> = {};
for (const k of Object.keys(counted)) {
  const v = ((counted[k] ?? 0) - (overhead[k] ?? 0)) / CALLS;
  if (v !== 0 && k !== "Structure" && k !== "PropertyTable") perCall[k] = v;
}
// Exit once the line is written: a pipe read slowly still gets all of it.
process.stdout.write(`${JSON.stringify({ perCall })}\n`, () => process.exit(0));
