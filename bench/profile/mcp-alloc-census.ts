/**
 * Profiling aid (not part of `bun bench/run.ts`): what the MCP server layer allocates per `tools/call`,
 * counted by type. JSC counts every cell allocated since the last collection as live, so the difference
 * of `heapStats().objectTypeCounts` across calls made without a collection in between is what those calls
 * allocated. The server is agentd's `McpServer` with the benchmark's `echo` tool, on a transport that takes
 * the protocol as its peer and keeps the last reply (no framing, no copy, no syscall); each call is a
 * pre-built message handed to `receive` with the extra an HTTP POST gives (session id, classification),
 * and the next call starts from a microtask once the reply is sent (no promise, no closure of the driver's
 * own per call). The counting's own objects (a run of no call) are subtracted.
 *
 *   bun bench/profile/mcp-alloc-census.ts [CALLS=200] [ROOT]   (ROOT: a checkout to measure, default this one)
 *
 * Prints the allocations per call by type and their total; `CENSUS_JSON=1` prints one JSON line instead;
 * `CENSUS_TIME=N` adds the CPU per call of N more calls (the server's MCP layer hot, in process).
 */
import { heapStats } from "bun:jsc";
import { join } from "node:path";
import { ECHO_TOOL, echo } from "../lib/echo-tool.ts";

const calls = Number(process.argv[2] ?? 200);
const root = process.argv[3] ?? join(import.meta.dir, "../..");
const { McpServer } = (await import(
  join(root, "packages/sdk/src/mcp/server/index.ts")
)) as typeof import("../../packages/sdk/src/mcp/server/index.ts");
const { SENT } = (await import(
  join(root, "packages/sdk/src/transport/types.ts")
)) as typeof import("../../packages/sdk/src/transport/types.ts");
const { classify } = (await import(
  join(root, "packages/sdk/src/wire/jsonrpc.ts")
)) as typeof import("../../packages/sdk/src/wire/jsonrpc.ts");

interface Peer {
  receive(message: unknown, extra?: unknown): void;
}

/** A transport handing messages to its peer directly, keeping the last reply. */
class CensusTransport {
  peer!: Peer;
  readonly sessionId = "census-session";
  replies = 0;
  last: unknown;
  onReply: (() => void) | undefined;
  attach(peer: Peer): void {
    this.peer = peer;
  }
  async start(): Promise<void> {}
  send(message: unknown): Promise<void> {
    this.last = message;
    this.replies++;
    this.onReply?.();
    return SENT;
  }
  async close(): Promise<void> {}
  setProtocolVersion(): void {}
}

const server = new McpServer({ name: "census-echo", version: "1.0.0" });
server.tool(ECHO_TOOL, echo);
const transport = new CensusTransport();
await server.connect(transport as never);
const extraOf = (message: unknown) => ({ sessionId: transport.sessionId, authInfo: undefined, classified: classify(message) });
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
/** `n` calls as an HTTP POST would hand them over: each message parsed from its own body, with its extra. */
function prepare(n: number): Array<[unknown, unknown]> {
  const out: Array<[unknown, unknown]> = [];
  for (let i = 0; i < n; i++) {
    const m = JSON.parse(`{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`);
    out.push([m, extraOf(m)]);
  }
  return out;
}

/** Run the calls one after another, each started from a microtask once the previous one was answered. */
function run(batch: Array<[unknown, unknown]>): Promise<void> {
  return new Promise((resolve) => {
    let i = 0;
    const next = () => {
      if (i === batch.length) {
        transport.onReply = undefined;
        return resolve();
      }
      const [m, extra] = batch[i++] as [unknown, unknown];
      transport.peer.receive(m, extra);
    };
    const queued = () => queueMicrotask(next);
    transport.onReply = queued;
    next();
  });
}

const counts = () => ({ ...heapStats().objectTypeCounts }) as Record<string, number>;

/** Allocations of `n` calls (plus the counting's own, which the difference of two runs cancels). */
async function census(n: number): Promise<Record<string, number>> {
  const batch = prepare(n);
  Bun.gc(true);
  const before = counts();
  const replies = transport.replies;
  await run(batch);
  const after = counts();
  if (transport.replies - replies !== n) throw new Error(`expected ${n} replies, got ${transport.replies - replies}`);
  const d: Record<string, number> = {};
  for (const k of new Set([...Object.keys(before), ...Object.keys(after)])) d[k] = (after[k] ?? 0) - (before[k] ?? 0);
  return d;
}

// Warm up until the JIT has settled the path's shapes (structures made once do not count per call).
for (let r = 0; r < 20; r++) await run(prepare(1_000));
const reply = transport.last as { result?: { content?: Array<{ text?: string }> } };
if (reply.result?.content?.[0]?.text !== "hello") throw new Error(`echo answered wrong: ${JSON.stringify(transport.last)}`);

// The counting's own objects, measured with no call, are subtracted. A collection during a run lowers its
// counts and a path still being compiled raises them: the median of five runs is the figure.
const overhead = await census(0);
if (process.env.CENSUS_DEBUG) console.log("overhead", JSON.stringify(overhead));
const runs: Array<Record<string, number>> = [];
for (let r = 0; r < 5; r++) {
  const d = await census(calls);
  if (process.env.CENSUS_DEBUG) console.log("run", JSON.stringify(Object.fromEntries(Object.entries(d).filter(([, v]) => v !== 0))));
  runs.push(d);
}
const perCall: Record<string, number> = {};
for (const k of new Set(runs.flatMap((d) => Object.keys(d)))) {
  const v = runs.map((d) => ((d[k] ?? 0) - (overhead[k] ?? 0)) / calls).sort((x, y) => x - y)[2] as number;
  if (v >= 0.05) perCall[k] = Math.round(v * 100) / 100;
}
let total = 0;
for (const [k, v] of Object.entries(perCall)) if (k !== "Structure" && k !== "PropertyTable") total += v;
// `CENSUS_TIME=N`: also the CPU per call of N more calls (hot, in process: the server's MCP layer alone).
let cpuUsPerCall: number | undefined;
const timed = Number(process.env.CENSUS_TIME ?? 0);
if (timed > 0) {
  const batch = prepare(timed);
  const before = process.cpuUsage();
  await run(batch);
  const used = process.cpuUsage(before);
  cpuUsPerCall = Math.round(((used.user + used.system) / timed) * 1000) / 1000;
}
const lines: string[] = [];
if (process.env.CENSUS_JSON) lines.push(JSON.stringify({ perCall, total: Math.round(total * 100) / 100, cpuUsPerCall }));
else {
  for (const [k, v] of Object.entries(perCall).sort((a, b) => b[1] - a[1])) lines.push(`${k.padEnd(28)} ${v}`);
  lines.push(`${"total (cells)".padEnd(28)} ${Math.round(total * 100) / 100}`);
  if (cpuUsPerCall !== undefined) lines.push(`${"CPU µs per call".padEnd(28)} ${cpuUsPerCall}`);
}
// Exit once the lines are written: a pipe read slowly still gets all of them.
process.stdout.write(`${lines.join("\n")}\n`, () => process.exit(0));
