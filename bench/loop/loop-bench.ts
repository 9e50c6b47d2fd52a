/**
 * Benchmark 5, loop overhead: a scripted run of 10 tool turns (plus the final answer) against the fake
 * gateway, with a minimal timed MCP server as the tool — agentd against `@openai/agents` (Bun and Node).
 * Overhead per tool turn = (run wall time − the gateway's server-side time − the tool server's time) / 10.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { buildForNode } from "../lib/node-build.ts";
import { BENCH_DIR, BUN, startChild } from "../lib/proc.ts";
import { sig } from "../lib/stats.ts";
import { TOOL_TURNS } from "./script.ts";

const SIZES: Record<Mode, { workers: number; warmups: number; runs: number }> = {
  full: { workers: 3, warmups: 3, runs: 5 },
  quick: { workers: 3, warmups: 2, runs: 3 },
  tiny: { workers: 1, warmups: 1, runs: 1 },
};

const FRAMEWORKS = [
  { id: "ours", subject: "agentd createAgent (Bun)" },
  { id: "openai-bun", subject: "@openai/agents 0.20.0 (Bun)" },
  { id: "openai-node", subject: "@openai/agents 0.20.0 (Node 20)" },
  { id: "mastra-bun", subject: "Mastra (@mastra/core 1.71.0, Bun)" },
] as const;
type FrameworkId = (typeof FRAMEWORKS)[number]["id"];

/** Per-run breakdown in ms. */
interface RunBreakdown {
  wall: number;
  gateway: number;
  tool: number;
}

async function workerArgv(id: FrameworkId, node: () => Promise<string>): Promise<string[]> {
  if (id === "ours") return [BUN, join(BENCH_DIR, "loop", "worker-agentd.ts")];
  if (id === "openai-bun") return [BUN, join(BENCH_DIR, "loop", "worker-openai.ts")];
  if (id === "mastra-bun") return [BUN, join(BENCH_DIR, "loop", "worker-mastra.ts")];
  return ["node", await node()];
}

/** One worker process: warm up, then `runs` timed runs; the gateway's and the tool's times per run. */
async function measure(id: FrameworkId, node: () => Promise<string>, size: (typeof SIZES)[Mode]): Promise<RunBreakdown[]> {
  const dir = mkdtempSync(join(tmpdir(), "agentd-bench-loop-"));
  const toolTimes = join(dir, "tool-times.txt");
  const gateway = startChild([BUN, join(BENCH_DIR, "loop", "gateway-child.ts")]);
  try {
    const { url } = await gateway.next<{ url: string }>(30_000);
    const argv = [...(await workerArgv(id, node)), url, String(size.warmups), String(size.runs)];
    const worker = startChild(argv, { env: { BENCH_TOOL_TIMES: toolTimes, BENCH_BUN: BUN } });
    try {
      await worker.next(120_000); // ready
      gateway.send("reset");
      await gateway.next();
      worker.send("go");
      const { walls } = await worker.next<{ walls: number[] }>(300_000);
      await worker.exited; // the tool server writes its times when the worker closes it
      gateway.send("report");
      const { ms } = await gateway.next<{ ms: number[] }>();
      const tools = readFileSync(toolTimes, "utf8")
        .trim()
        .split("\n")
        .map(Number)
        .slice(size.warmups * TOOL_TURNS);
      const perRun = TOOL_TURNS + 1;
      if (ms.length !== walls.length * perRun || tools.length !== walls.length * TOOL_TURNS)
        throw new Error(
          `${id}: expected ${walls.length * perRun} model requests and ${walls.length * TOOL_TURNS} tool calls, saw ${ms.length} and ${tools.length}`,
        );
      const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
      return walls.map((wall, i) => ({
        wall,
        gateway: sum(ms.slice(i * perRun, (i + 1) * perRun)),
        tool: sum(tools.slice(i * TOOL_TURNS, (i + 1) * TOOL_TURNS)),
      }));
    } finally {
      await worker.stop();
    }
  } finally {
    await gateway.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Run the loop-overhead benchmark. */
export async function runLoop(mode: Mode, log: (line: string) => void = () => {}): Promise<BenchResult> {
  const started = performance.now();
  const size = SIZES[mode];
  let built: Promise<string> | undefined;
  const node = () =>
    (built ??= buildForNode("bench/loop/worker-openai.ts", "loop-worker-openai", [
      "@openai/*",
      "openai",
      "zod",
      "@modelcontextprotocol/*",
    ]));
  const results = new Map<FrameworkId, RunBreakdown[]>();
  for (let w = 0; w < size.workers; w++) {
    for (const f of FRAMEWORKS) {
      log(`loop: ${f.id} worker ${w + 1}/${size.workers}`);
      results.set(f.id, [...(results.get(f.id) ?? []), ...(await measure(f.id, node, size))]);
    }
  }
  const specs: FigureSpec[] = [];
  const views = [
    {
      key: "overhead",
      group: "loop overhead per tool turn (wall − gateway − tool) / 10",
      pick: (r: RunBreakdown) => (r.wall - r.gateway - r.tool) / TOOL_TURNS,
    },
    { key: "wall", group: `whole run wall time (${TOOL_TURNS} tool turns + final answer)`, pick: (r: RunBreakdown) => r.wall },
    { key: "gateway", group: "of which: gateway server-side time (11 requests)", pick: (r: RunBreakdown) => r.gateway },
    { key: "tool", group: `of which: tool server time (${TOOL_TURNS} calls)`, pick: (r: RunBreakdown) => r.tool },
  ];
  for (const v of views) {
    for (const f of FRAMEWORKS) {
      const spec: FigureSpec = {
        id: `${v.key}.${f.id}`,
        group: v.group,
        subject: f.subject,
        metric: "time",
        unit: "ms",
        better: "lower",
        runs: (results.get(f.id) ?? []).map(v.pick),
      };
      if (f.id !== "openai-bun") spec.peer = `${v.key}.openai-bun`;
      if (f.id === "ours" && v.key === "overhead")
        spec.targets = [
          { text: "≤ 0.5× @openai/agents (Bun)", against: "peer", op: "<=", value: 0.5 },
          { text: "≤ 0.3× Mastra (Bun)", against: "peer", peerFigure: `${v.key}.mastra-bun`, op: "<=", value: 0.3 },
        ];
      specs.push(spec);
    }
  }
  const figures = finishFigures("loop", specs);
  const med = (id: string) => figures.find((x) => x.id === id)?.median ?? Number.NaN;
  return {
    bench: "loop",
    mode,
    command: `bun bench/run.ts loop${mode === "quick" ? " --quick" : ""}`,
    seconds: (performance.now() - started) / 1000,
    figures,
    notes: [
      `Each framework runs in ${size.workers} fresh worker processes (interleaved), each connected once to the tool server, ${size.warmups} untimed warm-up runs, then ${size.runs} timed runs; each run is one figure run.`,
      "The gateway (testkit's OpenAI-compatible fake, one dynamic turn: call echo until 10 results, then answer) runs in its own process and times each request server-side, from its Bun.serve fetch handler's call to the Response handed back (a whole JSON body). The tool is a hand-written NDJSON MCP server (bench/loop/timed-mcp-server.ts) timing each tools/call from its line's arrival to its answer's write. Non-streaming chat completions on both sides; @openai/agents caches the tool list (cacheToolsList) and has tracing off.",
      `agentd's overhead against @openai/agents on Node: ${sig(med("overhead.ours") / med("overhead.openai-node"))}×; against Mastra on Bun: ${sig(med("overhead.ours") / med("overhead.mastra-bun"))}×.`,
      "Mastra runs `Agent.generate` (maxSteps 20) with `@ai-sdk/openai-compatible`'s chat model and the tools of `@mastra/mcp`'s MCPClient, listed once before the runs; no memory, no storage.",
    ],
  };
}
