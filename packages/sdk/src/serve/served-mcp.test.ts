import { describe, expect, test } from "bun:test";
import { McpClient } from "../mcp/client/client.ts";
import { MemoryTransport } from "../transport/memory.ts";
import { AgentdError } from "../wire/errors.ts";
import type { RunEvent } from "../loop/events.ts";
import { createServedMcp, type ServedRunner } from "./served-mcp.ts";

/** A runner that emits two events and answers, or fails when the instruction says so. */
const fakeRunner = (gate?: Promise<void>): ServedRunner => ({
  async run(input, { runId, onEvent }) {
    const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
    onEvent?.({ type: "model-end", runId: runId!, turn: 1, usage, finishReason: "tool-calls", toolCalls: 1 } as RunEvent);
    await gate;
    onEvent?.({
      type: "tool-call-end",
      runId: runId!,
      turn: 1,
      toolCallId: "c1",
      name: "x",
      qualifiedName: "s/x",
      isError: false,
      size: 3,
      durationMs: 1,
    } as RunEvent);
    if (input === "fail") throw new AgentdError("E_BUDGET_TURNS", "turn budget of 1 exhausted", { data: { usage } });
    return { text: `done: ${input}`, usage, turns: 1, runId: runId!, stopReason: "final", toolCalls: 1 };
  },
});

async function connect(runner: ServedRunner, serverNotifications = true) {
  const self = createServedMcp({ runner, capabilities: { serverNotifications } });
  const [a, b] = MemoryTransport.createPair();
  await self.server.connect(b);
  const client = new McpClient({ name: "test", version: "1" });
  await client.connect(a);
  return { self, client };
}

describe("served agent", () => {
  test("agent.run returns the answer with structured content and emits progress with a token", async () => {
    const { client } = await connect(fakeRunner());
    const progress: string[] = [];
    const result = await client.callTool(
      "agent.run",
      { instruction: "hello", runId: "r-1" },
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    expect(result.content[0]).toEqual({ type: "text", text: "done: hello" });
    expect(result.structuredContent).toMatchObject({ runId: "r-1", text: "done: hello", stopReason: "final" });
    expect(progress).toEqual(["turn 1: model answered with 1 tool call(s)", "tool s/x returned (1ms)"]);
    await client.close();
  });

  test("a finished run id is not repeated", async () => {
    let runs = 0;
    const runner: ServedRunner = { run: async (i, o) => (runs++, fakeRunner().run(i, o)) };
    const { client } = await connect(runner);
    await client.callTool("agent.run", { instruction: "x", runId: "same" });
    const again = await client.callTool("agent.run", { instruction: "x", runId: "same" });
    expect(runs).toBe(1);
    expect(again.structuredContent).toMatchObject({ stopReason: "already done" });
    await client.close();
  });

  test("agent://status and agent://runs/{id} are subscribable and updated on every change", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { client } = await connect(fakeRunner(gate));
    let statusChanged!: () => void;
    const firstUpdate = new Promise<void>((r) => (statusChanged = r));
    client.on("resourceUpdated", ({ uri }) => uri === "agent://status" && statusChanged());
    await client.subscribe("agent://status");
    const idle = JSON.parse((await client.readResource("agent://status")).contents[0]!.text as string);
    expect(idle.state).toBe("idle");
    const call = client.callTool("agent.run", { instruction: "slow", runId: "r-2" });
    await firstUpdate;
    const running = JSON.parse((await client.readResource("agent://status")).contents[0]!.text as string);
    expect(running).toMatchObject({ state: "running", running: ["r-2"] });
    const mid = JSON.parse((await client.readResource("agent://runs/r-2")).contents[0]!.text as string);
    expect(mid.status).toBe("running");
    release();
    await call;
    const done = JSON.parse((await client.readResource("agent://runs/r-2")).contents[0]!.text as string);
    expect(done).toMatchObject({ status: "succeeded", result: { text: "done: slow" }, turns: 1 });
    const after = JSON.parse((await client.readResource("agent://status")).contents[0]!.text as string);
    expect(after).toMatchObject({ state: "idle", runsSucceeded: 1, usage: { totalTokens: 15 } });
    await client.close();
  });

  test("agent://runs/{id} shows the running run's tool in flight and its latest progress; gone when it returns", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let progressed!: () => void;
    const reported = new Promise<void>((r) => (progressed = r));
    const call = { runId: "r-p", turn: 1, toolCallId: "c9", name: "slow_work", qualifiedName: "slow/work" };
    const runner: ServedRunner = {
      async run(input, { runId, onEvent }) {
        onEvent?.({ type: "tool-call-start", ...call, argumentsSize: 2, arguments: {} });
        onEvent?.({ type: "tool-call-progress", ...call, progress: 2, total: 10, message: "step 2 of 10", elapsedMs: 600 });
        progressed();
        await gate;
        onEvent?.({ type: "tool-call-end", ...call, isError: false, size: 4, durationMs: 3000, summary: "done" });
        const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
        return { text: input, usage, turns: 1, runId: runId!, stopReason: "final", toolCalls: 1 };
      },
    };
    const { client } = await connect(runner);
    const progress: string[] = [];
    const running = client.callTool(
      "agent.run",
      { instruction: "go", runId: "r-p" },
      { onprogress: (p) => progress.push(p.message ?? "") },
    );
    await reported;
    const mid = JSON.parse((await client.readResource("agent://runs/r-p")).contents[0]!.text as string);
    expect(mid).toMatchObject({
      status: "running",
      tool: { name: "slow/work", toolCallId: "c9", progress: 2, total: 10, message: "step 2 of 10", elapsedMs: 600 },
    });
    release();
    await running;
    const done = JSON.parse((await client.readResource("agent://runs/r-p")).contents[0]!.text as string);
    expect(done.status).toBe("succeeded");
    expect(done.tool).toBeUndefined();
    expect(progress).toContain("tool slow/work: 2/10 step 2 of 10");
    await client.close();
  });

  test("a failed run is an isError result and a failed record", async () => {
    const { client } = await connect(fakeRunner());
    const result = await client.callTool("agent.run", { instruction: "fail", runId: "r-3" });
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain("E_BUDGET_TURNS");
    const rec = JSON.parse((await client.readResource("agent://runs/r-3")).contents[0]!.text as string);
    expect(rec).toMatchObject({ status: "failed", error: { code: "E_BUDGET_TURNS" } });
    await client.close();
  });

  test("server notifications off (default): no logging capability, no progress", async () => {
    const { client } = await connect(fakeRunner(), false);
    expect(client.serverCapabilities.logging).toBeUndefined();
    const progress: unknown[] = [];
    await client.callTool("agent.run", { instruction: "hi" }, { onprogress: (p) => progress.push(p) });
    expect(progress).toEqual([]);
    await client.close();
  });

  test("server notifications on: telemetry is mirrored as notifications/message at or above the client's level", async () => {
    const { self, client } = await connect(fakeRunner());
    expect(client.serverCapabilities.logging).toBeDefined();
    const logs: Array<{ level: string; data: unknown }> = [];
    client.on("log", (l) => logs.push(l));
    await client.setLoggingLevel("warning");
    self.mirrorLog({ ts: "t", level: "info", event: "run.start" });
    self.mirrorLog({ ts: "t", level: "error", event: "run.failed", runId: "r" });
    await client.ping();
    expect(logs).toEqual([{ level: "error", logger: "agentd", data: { ts: "t", event: "run.failed", runId: "r" } } as never]);
    await client.close();
  });
});
