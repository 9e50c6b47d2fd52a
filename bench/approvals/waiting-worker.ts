/**
 * One process of the approvals benchmark (approvals-bench.ts), so its memory is its own:
 *
 *   bun bench/approvals/waiting-worker.ts memory N STATE_DIR    # N runs left waiting beyond an idle agent
 *   bun bench/approvals/waiting-worker.ts latency N STATE_DIR   # decision → tool call, N times, in this process
 *   bun bench/approvals/waiting-worker.ts save N redis://…      # N runs left waiting on Redis (BENCH_PREFIX): their ids
 *   bun bench/approvals/waiting-worker.ts resume FILE redis://… # resume the runs FILE names (another process saved them)
 *
 * The agent: `createAgent` with an in-process model that calls `clean` once then answers, a `clean` tool
 * held by an approval rule, nobody to ask in code — so each run ends waiting, saved in STATE_DIR (the local
 * state directory's store). Prints one JSON object.
 */
import { createAgent } from "@agentd/sdk";
import type { ToolSet } from "@agentd/sdk/loop";
import type { LanguageModel, ModelRequest, ModelResponse } from "@agentd/sdk/model";
import { RedisBackend } from "@agentd/sdk/store";
import { readFileSync } from "node:fs";
import { LocalDocuments } from "../../packages/sdk/src/agent/conversations/local-documents.ts";

const [mode, count, dir] = process.argv.slice(2);
const n = Number(count);

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
/** Calls `clean` on a fresh path unless the request already carries a tool result, then answers. */
const model: LanguageModel = {
  provider: "bench",
  modelId: "bench-1",
  supportsTools: true,
  async generate(request: ModelRequest): Promise<ModelResponse> {
    if (request.messages.some((m) => m.role === "tool")) return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage };
    const id = `call_${crypto.randomUUID()}`;
    return {
      content: [{ type: "tool-call", toolCallId: id, toolName: "clean", input: { path: `/tmp/${id}` } }],
      finishReason: "tool-calls",
      usage,
    };
  },
  // biome-ignore lint/correctness/useYield: the bench asks for whole responses only.
  async *stream() {
    throw new Error("not streamed");
  },
};

let calledAt = 0;
const tools: ToolSet = {
  list: async () => [
    { name: "clean", description: "Delete a path", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
  ],
  call: async () => {
    calledAt = performance.now();
    return { text: "cleaned", isError: false };
  },
};

const agent = createAgent({
  model,
  tools,
  approvals: { rules: [{ tool: "clean", decision: "ask" }] },
  durability: {
    waitingRuns: dir!.startsWith("redis://")
      ? new RedisBackend({ url: dir!, prefix: process.env.BENCH_PREFIX ?? "bench:" })
      : new LocalDocuments(dir!),
  },
});

const rss = () => {
  Bun.gc(true);
  return process.memoryUsage();
};

try {
  if (mode === "memory") {
    // Warm: the code paths compiled (JIT tiers), the allocator's arenas grown, the store's directory made;
    // without it the first few hundred runs' one-off growth (≈ 10 MB, flat beyond) reads as a per-run cost.
    for (let i = 0; i < 500; i++) await agent.run("clean up");
    const idle = rss();
    for (let i = 0; i < n; i++) {
      const r = await agent.run("clean up");
      if (r.status !== "waiting") throw new Error(`run ended ${r.status}`);
    }
    const after = rss();
    const inFlight = agent.runIds().length;
    process.stdout.write(
      `${JSON.stringify({ runs: n, inFlight, rssPerRunKb: (after.rss - idle.rss) / 1024 / n, heapPerRunKb: (after.heapUsed - idle.heapUsed) / 1024 / n })}\n`,
    );
  } else if (mode === "save") {
    const runs: Array<{ runId: string; id: string }> = [];
    for (let i = 0; i < n; i++) {
      const r = await agent.run("clean up");
      runs.push({ runId: r.runId, id: r.pending![0]!.id });
    }
    process.stdout.write(`${JSON.stringify({ runs })}\n`);
  } else if (mode === "resume") {
    const { runs } = JSON.parse(readFileSync(count!, "utf8")) as { runs: Array<{ runId: string; id: string }> };
    const times: number[] = [];
    for (const [i, r] of runs.entries()) {
      calledAt = 0;
      const decided = performance.now();
      const done = await agent.resume(r.runId, { [r.id]: { decision: "approve", by: "bench" } });
      if (done.status !== "finished" || calledAt === 0) throw new Error(`resumed run ended ${done.status} without the tool called`);
      if (i >= 10) times.push(calledAt - decided);
    }
    process.stdout.write(`${JSON.stringify({ times })}\n`);
  } else {
    const times: number[] = [];
    for (let i = 0; i < n + 10; i++) {
      const r = await agent.run("clean up");
      const q = r.pending![0]!;
      calledAt = 0;
      const decided = performance.now();
      const done = await agent.resume(r.runId, { [q.id]: { decision: "approve", by: "bench" } });
      if (done.status !== "finished" || calledAt === 0) throw new Error(`resumed run ended ${done.status} without the tool called`);
      if (i >= 10) times.push(calledAt - decided);
    }
    process.stdout.write(`${JSON.stringify({ times })}\n`);
  }
} finally {
  await agent.close();
}
