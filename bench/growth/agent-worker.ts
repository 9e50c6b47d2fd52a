/**
 * The growth benchmark's agent process: one `createAgent` (public SDK API) doing one kind of work at one
 * size, so its memory and event loop are its own. Prints JSON lines; stdin lines drive it.
 *
 *   bun bench/growth/agent-worker.ts runs GATEWAY_URL N       concurrent runs held in flight by the gateway
 *   bun bench/growth/agent-worker.ts servers N                N stdio MCP servers: start-up to first tool call
 *   bun bench/growth/agent-worker.ts parallel GATEWAY_URL R   R runs whose model asks K tool calls at once
 *   bun bench/growth/agent-worker.ts subs GATEWAY_URL N B     N subscribed resources on one fake server, a
 *                                                             burst of B changes: RSS, change → run-start
 *   bun bench/growth/agent-worker.ts subagents GATEWAY_URL N BINARY
 *                                                             N subagents of the compiled BINARY at once:
 *                                                             start → first progress, then RSS while held
 */
import { createModel } from "@agentd/adapters";
import { createAgent, type Agent } from "@agentd/sdk";
import { Supervisor } from "@agentd/sdk/supervisor";
import { procStatusKb } from "../lib/proc.ts";
import { subscriptions } from "./subscriptions-worker.ts";

const TOOL_SERVER = new URL("../loop/timed-mcp-server.ts", import.meta.url).pathname;
const [kind = "", ...args] = process.argv.slice(2);
const print = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);
const rssKb = () => {
  Bun.gc(true);
  Bun.gc(true);
  return procStatusKb(process.pid, "VmRSS") ?? 0;
};

const lines = (async function* () {
  let buf = "";
  for await (const chunk of Bun.stdin.stream()) {
    buf += new TextDecoder().decode(chunk);
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      yield buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
    }
  }
})();
const nextLine = async () => (await lines.next()).value ?? "";

/** Event-loop lag over `ms`: how late 5 ms timers fire (p50, p99, max in ms). */
async function loopLag(ms: number): Promise<{ p50: number; p99: number; max: number }> {
  const lags: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 5));
    lags.push(Math.max(0, performance.now() - t0 - 5));
  }
  lags.sort((a, b) => a - b);
  const at = (p: number) => lags[Math.min(lags.length - 1, Math.floor(p * lags.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: lags.at(-1) ?? 0 };
}

const modelAt = (url: string) =>
  createModel({ dialect: "openai", baseURL: url, model: "bench-growth", apiKey: "bench-no-key", maxRetries: 0 });
const toolServer = { command: process.execPath, args: [TOOL_SERVER] };

async function concurrentRuns(url: string, n: number): Promise<void> {
  const agent = createAgent({ model: modelAt(url), instructions: "Answer.", limits: { maxTurns: 4 } });
  await agent.run("warm-up"); // the gateway answers the first request at once
  const baseKb = rssKb();
  print({ base: true });
  const runs = Array.from({ length: n }, (_, i) => agent.run(`run ${i}`));
  await nextLine(); // the harness saw N requests held at the gateway
  const lag = await loopLag(400);
  print({ baseKb, inFlightKb: rssKb(), lag });
  const results = await Promise.all(runs);
  if (results.some((r) => !r.text)) throw new Error("a run ended without an answer");
  print({ done: results.length });
  await agent.close();
}

async function servers(n: number): Promise<void> {
  const mcpServers = Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, toolServer]));
  const t0 = performance.now();
  const agent: Agent = createAgent({ model: modelAt("http://127.0.0.1:9/v1"), mcpServers });
  await agent.connect();
  const r = (await agent.clients.get(`s${n - 1}`)?.callTool("echo", { text: "first" })) as
    | { content?: Array<{ text?: string }> }
    | undefined;
  const ms = performance.now() - t0;
  if (r?.content?.[0]?.text !== "first") throw new Error(`the first tool call answered ${JSON.stringify(r)}`);
  print({ ms, rssKb: rssKb() });
  await agent.close();
}

async function parallel(url: string, runs: number): Promise<void> {
  const agent = createAgent({
    model: modelAt(url),
    mcpServers: { t: toolServer },
    instructions: "Use the tools.",
    limits: { maxTurns: 4 },
  });
  await agent.run("warm-up");
  const t0 = performance.now();
  let calls = 0;
  for (let i = 0; i < runs; i++) calls += (await agent.run(`run ${i}`)).toolCalls;
  print({ ms: performance.now() - t0, calls });
  await agent.close();
}

async function subagents(url: string, n: number, binary: string): Promise<void> {
  const sup = new Supervisor({
    model: { intelligence: url, dialect: "openai", name: "bench-growth" },
    command: { command: binary, args: ["__subagent"], env: { AGENT_API_KEY: "bench-no-key" } },
    maxChildren: n,
    instructions: "Answer.",
  });
  try {
    // Phase 1: the gateway answers at once; each child's time from start() to its first progress report.
    const firstProgress = new Map<string, number>();
    const off = sup.table.onChange((record) => {
      if (record.turns >= 1 && !firstProgress.has(record.id)) firstProgress.set(record.id, performance.now());
    });
    const startedAt = new Map<string, number>();
    const ids = Array.from({ length: n }, (_, i) => {
      const t = performance.now();
      const { id } = sup.start({ instruction: `child ${i}` });
      startedAt.set(id, t);
      return id;
    });
    const records = await Promise.all(ids.map((id) => sup.wait(id, { timeoutMs: 120_000 })));
    off();
    if (records.some((r) => r?.status !== "completed")) throw new Error(`children ended ${records.map((r) => r?.status).join(", ")}`);
    const latencies = ids.map((id) => (firstProgress.get(id) ?? Number.NaN) - (startedAt.get(id) as number)).sort((a, b) => a - b);
    if (latencies.some((l) => !Number.isFinite(l))) throw new Error("a child finished without a progress report");
    print({ p50: latencies[(latencies.length - 1) >> 1], max: latencies.at(-1) });
    // Phase 2: the harness holds every model request; RSS of the live children.
    await nextLine();
    const held = Array.from({ length: n }, (_, i) => sup.start({ instruction: `held child ${i}` }).id);
    print({ started: held.length });
    await nextLine(); // the harness saw N held requests
    // The supervisor's own children only: the process also holds a kill-on-death watchdog (a small shell).
    const kb = sup.pids().map((pid) => procStatusKb(pid, "VmRSS") ?? 0);
    print({ childRssKb: kb });
    await Promise.all(held.map((id) => sup.wait(id, { timeoutMs: 120_000 })));
  } finally {
    await sup.shutdown();
  }
}

if (kind === "runs") await concurrentRuns(args[0] ?? "", Number(args[1]));
else if (kind === "servers") await servers(Number(args[0]));
else if (kind === "parallel") await parallel(args[0] ?? "", Number(args[1]));
else if (kind === "subs") await subscriptions(modelAt(args[0] ?? ""), Number(args[1]), Number(args[2]), rssKb, print);
else if (kind === "subagents") await subagents(args[0] ?? "", Number(args[1]), args[2] ?? "");
else throw new Error(`unknown work "${kind}": use runs, servers, parallel, subs or subagents`);
process.exit(0);
