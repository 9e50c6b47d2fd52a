/**
 * Benchmark: MCP tasks on agentd's served agent (served over Streamable HTTP on 127.0.0.1, tasks on), driven
 * by the official SDK client. It measures the round trip of `tasks/get` against the plain `tools/call` of
 * the same tool (`agent.run`, whose runner answers at once), and the whole task cycle — a task-augmented
 * `tools/call` then `tasks/result` — against the same plain call. Latencies are the median of sequential
 * round trips, one value per repeat.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createServedMcp, type ServedRunner } from "@agentd/sdk/serve";
import { createStreamableHttpServer } from "@agentd/sdk/transport";
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { percentile, sig } from "../lib/stats.ts";

const SIZES: Record<Mode, { repeats: number; samples: number; warmup: number }> = {
  full: { repeats: 5, samples: 2000, warmup: 200 },
  quick: { repeats: 3, samples: 500, warmup: 100 },
  tiny: { repeats: 1, samples: 20, warmup: 5 },
};

const runner: ServedRunner = {
  async run(input, { runId }) {
    return {
      text: input,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      turns: 1,
      runId: runId!,
      stopReason: "final",
      toolCalls: 0,
    };
  },
};

/** Median round trip of `fn` over `samples` calls, in µs. */
async function median(samples: number, warmup: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await fn(i);
    times.push((performance.now() - t) * 1000);
  }
  return percentile(times, 50);
}

/** Run the tasks benchmark. */
export async function runTasks(mode: Mode, log: (line: string) => void = () => {}): Promise<BenchResult> {
  const started = performance.now();
  const size = SIZES[mode];
  const self = createServedMcp({ runner, capabilities: { tasks: true } });
  const server = await createStreamableHttpServer({ onsession: (t) => self.server.connect(t).then(() => {}) });
  const client = new Client({ name: "tasks-bench", version: "1.0.0" });
  const runs = { plain: [] as number[], get: [] as number[], cycle: [] as number[] };
  try {
    await client.connect(new StreamableHTTPClientTransport(server.url));
    const call = (i: number, task?: object) =>
      client.request(
        { method: "tools/call", params: { name: "agent.run", arguments: { instruction: `bench ${i}` }, ...(task ? { task } : {}) } },
        task ? CreateTaskResultSchema : CallToolResultSchema,
      );
    for (let rep = 0; rep < size.repeats; rep++) {
      runs.plain.push(sig(await median(size.samples, size.warmup, (i) => call(i))));
      // A fresh finished task each repeat: the cycles of the previous one push old tasks out of the bounded table.
      const created = (await call(0, {})) as { task: { taskId: string } };
      await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
      runs.get.push(sig(await median(size.samples, size.warmup, () => client.experimental.tasks.getTask(created.task.taskId))));
      runs.cycle.push(
        sig(
          await median(size.samples, size.warmup, async (i) => {
            const c = (await call(i, {})) as { task: { taskId: string } };
            await client.experimental.tasks.getTaskResult(c.task.taskId, CallToolResultSchema);
          }),
        ),
      );
      log(
        `tasks: repeat ${rep + 1}/${size.repeats}: plain ${runs.plain.at(-1)} µs, tasks/get ${runs.get.at(-1)} µs, cycle ${runs.cycle.at(-1)} µs`,
      );
    }
  } finally {
    await client.close().catch(() => {});
    await self.server.close();
    await server.close();
  }
  const group = "round trip over Streamable HTTP (JSON), sequential";
  const specs: FigureSpec[] = [
    {
      id: "plain.call",
      group,
      subject: "plain tools/call agent.run",
      metric: "p50 latency",
      unit: "µs",
      better: "lower",
      runs: runs.plain,
    },
    {
      id: "tasks.get",
      group,
      subject: "tasks/get",
      metric: "p50 latency",
      unit: "µs",
      better: "lower",
      runs: runs.get,
      peer: "plain.call",
    },
    {
      id: "tasks.cycle",
      group,
      subject: "task-augmented tools/call + tasks/result",
      metric: "p50 latency",
      unit: "µs",
      better: "lower",
      runs: runs.cycle,
      peer: "plain.call",
    },
  ];
  return {
    bench: "tasks",
    mode,
    command: `bun bench/run.ts tasks${mode === "quick" ? " --quick" : ""}`,
    seconds: sig((performance.now() - started) / 1000),
    figures: finishFigures("tasks", specs),
    notes: [
      "agentd's served agent with capabilities.tasks on, in-process, on 127.0.0.1; driven by @modelcontextprotocol/sdk 1.32.2's client. The runner answers at once, so the figures are protocol cost, not work.",
      "vsPeer is the figure's median over the plain tools/call median: what polling one task status, and running a call as a task, cost against calling it plainly.",
    ],
  };
}
