/**
 * Profiling aid (not part of `bun bench/run.ts`), for `stdio-ab.ts`: one stdio pair of the tree at ROOT —
 * ROOT's `McpClient` over `StdioChildTransport` to ROOT's agentd echo server (`agentd`), the raw NDJSON echo
 * (`raw`, the floor: the same client code as `bench/stdio/clients.ts`), or a half of each to tell the client's
 * cost from the server's (`client`: agentd's client to `stdio-min-server.ts`; `server`: the floor's client to
 * agentd's server; `min`: the floor's client to the least server; `transport`: agentd's
 * stdio transport without the MCP client to the least server; `stransport`: the floor's client to agentd's
 * server stdio transport with canned answers, `stdio-transport-server.ts`) — then, after a warm-up, CALLS
 * sequential echo tools/calls, each timed. Prints one JSON line: p50 latency (µs) and the CPU per call of
 * the client and of the server child (µs, from `/proc/PID/task/* /schedstat`: nanoseconds of run time of
 * every thread, so Bun's helper threads count too; and of the main thread alone, without the JIT's compiler
 * threads, whose work comes in bursts and adds noise). Run it pinned, as the stdio benchmark is:
 *
 *   taskset -c 1 bun bench/profile/stdio-ab-worker.ts ROOT agentd|raw|client|server|min|transport|stransport [CALLS=8000] [PROFILE_DIR]
 *
 * With PROFILE_DIR, both processes run under `bun --cpu-prof` and write their profiles there.
 *
 * The warm-up is 3,000 sequential calls, after which both processes run optimised code. `WARMUP=bench` warms
 * up as `bench/stdio/stdio-worker.ts` does instead (300 sequential calls, then 32 in flight × 30), so the
 * calls timed are those the benchmark times: the JIT is still tiering up then, and its compiler threads
 * share the pinned CPU (their time counts in each process's CPU per call).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { percentile } from "../lib/stats.ts";

const [root = "", kind = "agentd", count = "8000", profileDir] = process.argv.slice(2);
const calls = Number(count);
const prof = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];

/** Nanoseconds on a CPU of every thread of `pid` (the first field of each task's schedstat). */
/** Nanoseconds on a CPU of the main (JavaScript) thread of `pid` alone: without the JIT's compiler threads. */
function mainNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]);
}

function runNs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns;
}

interface Pair {
  call(): Promise<void>;
  pid: number;
  close(): Promise<void>;
}

/** ROOT's `McpClient` over `StdioChildTransport` to the server in `file`. */
async function agentdClient(file: string): Promise<Pair> {
  const mcp = (await import(join(root, "packages/sdk/src/mcp/index.ts"))) as typeof import("@agentd/sdk/mcp");
  const transport = (await import(join(root, "packages/sdk/src/transport/index.ts"))) as typeof import("@agentd/sdk/transport");
  const c = new mcp.McpClient({ name: "ab-worker", version: "1.0.0" });
  const t = new transport.StdioChildTransport({ name: "echo", command: process.execPath, args: [...prof, file] });
  await c.connect(t);
  const args = { text: "hello" };
  return {
    async call() {
      const r = (await c.callTool("echo", args)) as { content?: Array<{ text?: string }> };
      if (r.content?.[0]?.text !== "hello") throw new Error(`echo answered ${JSON.stringify(r)}`);
    },
    pid: t.pid as number,
    close: () => c.close(),
  };
}

/** ROOT's `StdioChildTransport` alone (no MCP client): the transport's share of the client's cost. */
async function transportClient(file: string): Promise<Pair> {
  const transport = (await import(join(root, "packages/sdk/src/transport/index.ts"))) as typeof import("@agentd/sdk/transport");
  const t = new transport.StdioChildTransport({ name: "echo", command: process.execPath, args: [...prof, file] });
  let waiting: ((m: Line) => void) | undefined;
  t.onmessage = (m) => {
    const w = waiting;
    waiting = undefined;
    w?.(m as Line);
  };
  await t.start();
  let id = 0;
  const send = (message: Record<string, unknown>) =>
    new Promise<Line>((resolve) => {
      waiting = resolve;
      void t.send({ jsonrpc: "2.0", id: ++id, ...message } as never);
    });
  const clientInfo = { name: "ab-worker", version: "1.0.0" };
  await send({ method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo } });
  await t.send({ jsonrpc: "2.0", method: "notifications/initialized" } as never);
  const call = { method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } };
  return {
    async call() {
      const m = await send(call);
      if (m.result?.content?.[0]?.text !== "hello") throw new Error(`echo answered ${JSON.stringify(m)}`);
    },
    pid: t.pid as number,
    close: () => t.close(),
  };
}

type Line = { result?: { content?: Array<{ text?: string }> }; params?: { arguments?: { text?: string } } };

/**
 * The floor's client (`bench/stdio/clients.ts`): a tools/call line written, the answer's line read and parsed.
 * Against an MCP server (`handshake`), `initialize` and `notifications/initialized` go first.
 */
async function rawClient(file: string, handshake: boolean): Promise<Pair> {
  const proc = Bun.spawn([process.execPath, ...prof, file], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const waiting: Array<(line: string) => void> = [];
  let id = 0;
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        waiting.shift()?.(line);
      }
    }
  })();
  const send = (message: Record<string, unknown>, check: (m: Line) => boolean) =>
    new Promise<void>((resolve, reject) => {
      waiting.push((line) => {
        if (check(JSON.parse(line) as Line)) resolve();
        else reject(new Error(`the server answered ${line.slice(0, 200)}`));
      });
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, ...message })}\n`);
      proc.stdin.flush();
    });
  if (handshake) {
    const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "ab-worker", version: "1.0.0" } };
    await send({ method: "initialize", params }, (m) => m.result !== undefined);
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }
  const call = { method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } };
  const echoed = handshake ? (m: Line) => m.result?.content?.[0]?.text === "hello" : (m: Line) => m.params?.arguments?.text === "hello";
  return {
    call: () => send(call, echoed),
    pid: proc.pid,
    async close() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

const AGENTD_SERVER = join(root, "bench/stdio/servers/agentd-echo-server.ts");
/** The pairs: both agentd; the floor; agentd's client against the least server; the floor's client against agentd's server. */
const PAIRS: Record<string, () => Promise<Pair>> = {
  agentd: () => agentdClient(AGENTD_SERVER),
  raw: () => rawClient(join(root, "bench/stdio/servers/raw-echo.ts"), false),
  client: () => agentdClient(join(import.meta.dir, "stdio-min-server.ts")),
  server: () => rawClient(AGENTD_SERVER, true),
  min: () => rawClient(join(import.meta.dir, "stdio-min-server.ts"), true),
  transport: () => transportClient(join(import.meta.dir, "stdio-min-server.ts")),
  stransport: () => rawClient(join(root, "bench/profile/stdio-transport-server.ts"), true),
};

const make = PAIRS[kind];
if (!make) throw new Error(`unknown pair ${kind}: ${Object.keys(PAIRS).join(", ")}`);
const pair = await make();
try {
  if (process.env.WARMUP === "bench") {
    for (let i = 0; i < 300; i++) await pair.call();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = 0; i < 30; i++) await pair.call();
      }),
    );
  } else for (let i = 0; i < 3_000; i++) await pair.call();
  const samples = new Float64Array(calls);
  const client0 = runNs(process.pid);
  const server0 = runNs(pair.pid);
  const clientMain0 = mainNs(process.pid);
  const serverMain0 = mainNs(pair.pid);
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await pair.call();
    samples[i] = (performance.now() - t0) * 1000;
  }
  const meanUs = samples.reduce((a, b) => a + b, 0) / calls;
  const clientUs = (runNs(process.pid) - client0) / 1000 / calls;
  const serverUs = (runNs(pair.pid) - server0) / 1000 / calls;
  const clientMainUs = (mainNs(process.pid) - clientMain0) / 1000 / calls;
  const serverMainUs = (mainNs(pair.pid) - serverMain0) / 1000 / calls;
  console.log(JSON.stringify({ p50Us: percentile(Array.from(samples), 50), meanUs, clientUs, serverUs, clientMainUs, serverMainUs }));
} finally {
  await pair.close();
}
// Every line printed reaches its reader, however slow, before the exit (Bun's exit does not wait for a pipe).
process.stdout.once("error", () => process.exit(0));
process.stdout.end(() => process.exit(0));
