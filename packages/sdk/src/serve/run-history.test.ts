import { describe, expect, test } from "bun:test";
import { McpClient } from "../mcp/client/client.ts";
import { MemoryTransport } from "../transport/memory.ts";
import { AgentdError } from "../wire/errors.ts";
import type { RunEvent } from "../loop/events.ts";
import { createServedMcp, type ServedRunner } from "./served-mcp.ts";
import { RUN_DETAIL_LIMITS } from "./run-detail.ts";
import { RunRegistry } from "./run-registry.ts";

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

/** A runner that makes one tool call (arguments holding a credential) per run, then answers or fails. */
const runner = (gate?: Promise<void>): ServedRunner => ({
  async run(input, { runId, onEvent }) {
    const id = runId!;
    onEvent?.({ type: "model-start", runId: id, turn: 1, messages: 2 });
    onEvent?.({ type: "model-end", runId: id, turn: 1, usage, finishReason: "tool-calls", toolCalls: 1, responseModel: "m-1" });
    onEvent?.({
      type: "tool-call-start",
      runId: id,
      turn: 1,
      toolCallId: "c1",
      name: "files_read",
      qualifiedName: "files/read",
      argumentsSize: 40,
      arguments: { path: "/a", apiKey: "sk-supersecretvalue123456" },
    });
    await gate;
    onEvent?.({
      type: "tool-call-end",
      runId: id,
      turn: 1,
      toolCallId: "c1",
      name: "files_read",
      qualifiedName: "files/read",
      isError: input === "fail",
      size: 5,
      durationMs: 7,
      summary: input === "fail" ? "no such file" : "hello",
    });
    if (input === "fail") throw new AgentdError("E_BUDGET_TURNS", "turn budget of 1 exhausted", { data: { usage } });
    return { text: `done: ${input}`, usage, turns: 1, runId: id, stopReason: "final", toolCalls: 1 };
  },
});

async function connect(r: ServedRunner) {
  const self = createServedMcp({ runner: r, capabilities: { serverNotifications: true } });
  const [a, b] = MemoryTransport.createPair();
  await self.server.connect(b);
  const client = new McpClient({ name: "test", version: "1" });
  await client.connect(a);
  return { self, client };
}

const read = async (c: McpClient, uri: string) => JSON.parse((await c.readResource(uri)).contents[0]!.text as string);

describe("run history", () => {
  test("agent://runs lists runs newest first, pages with a cursor and filters by status and text", async () => {
    const { client } = await connect(runner());
    for (const i of [1, 2, 3]) await client.callTool("agent.run", { instruction: `job ${i}`, runId: `r-${i}` });
    await client.callTool("agent.run", { instruction: "fail", runId: "r-bad" });
    const all = await read(client, "agent://runs");
    expect(all.runs.map((r: { runId: string }) => r.runId)).toEqual(["r-bad", "r-3", "r-2", "r-1"]);
    expect(all.runs[0]).toMatchObject({ status: "failed", via: "mcp", error: { code: "E_BUDGET_TURNS" } });
    expect(all.runs[1]).toMatchObject({ status: "succeeded", answer: "done: job 3", stopReason: "final" });
    expect(all.nextCursor).toBeUndefined();
    const first = await read(client, "agent://runs?limit=2");
    expect(first.runs.map((r: { runId: string }) => r.runId)).toEqual(["r-bad", "r-3"]);
    const second = await read(client, `agent://runs?limit=2&cursor=${first.nextCursor}`);
    expect(second.runs.map((r: { runId: string }) => r.runId)).toEqual(["r-2", "r-1"]);
    expect(second.nextCursor).toBeUndefined();
    expect((await read(client, "agent://runs?status=failed")).runs.map((r: { runId: string }) => r.runId)).toEqual(["r-bad"]);
    expect((await read(client, "agent://runs?q=JOB%202")).runs.map((r: { runId: string }) => r.runId)).toEqual(["r-2"]);
    await expect(client.readResource("agent://runs?status=odd")).rejects.toThrow(/status must be running, waiting, succeeded or failed/);
    await client.close();
  });

  test("agent://runs/{id} has each turn, each tool call with server, masked arguments, duration, excerpt and error", async () => {
    const { client } = await connect(runner());
    await client.callTool("agent.run", { instruction: "ok", runId: "r-ok" });
    await client.callTool("agent.run", { instruction: "fail", runId: "r-fail" });
    const ok = await read(client, "agent://runs/r-ok");
    expect(ok.via).toBe("mcp");
    expect(ok.detail.turns).toHaveLength(1);
    const turn = ok.detail.turns[0];
    expect(turn).toMatchObject({ turn: 1, messages: 2, model: "m-1", usage, finishReason: "tool-calls" });
    expect(turn.toolCalls[0]).toMatchObject({
      toolCallId: "c1",
      server: "files",
      tool: "read",
      durationMs: 7,
      resultSize: 5,
      resultExcerpt: "hello",
    });
    expect(turn.toolCalls[0].arguments).toContain('"path":"/a"');
    expect(turn.toolCalls[0].arguments).not.toContain("supersecret");
    const failed = await read(client, "agent://runs/r-fail");
    expect(failed).toMatchObject({ status: "failed", error: { code: "E_BUDGET_TURNS" } });
    expect(failed.detail.turns[0].toolCalls[0]).toMatchObject({ error: "no such file" });
    expect(failed.detail.turns[0].toolCalls[0].resultExcerpt).toBeUndefined();
    await client.close();
  });

  test("subscribers of agent://runs hear of a run starting and ending", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { client } = await connect(runner(gate));
    const updates: string[] = [];
    let wake: (() => void) | undefined;
    client.on("resourceUpdated", ({ uri }) => {
      updates.push(uri);
      wake?.();
    });
    await client.subscribe("agent://runs");
    const until = async (n: number) => {
      while (updates.filter((u) => u === "agent://runs").length < n) await new Promise<void>((r) => (wake = r));
    };
    const call = client.callTool("agent.run", { instruction: "x", runId: "r-live" });
    await until(1);
    expect((await read(client, "agent://runs?status=running")).runs.map((r: { runId: string }) => r.runId)).toEqual(["r-live"]);
    release();
    await call;
    await until(2);
    expect((await read(client, "agent://runs")).runs[0]).toMatchObject({ runId: "r-live", status: "succeeded" });
    await client.close();
  });

  test("a run's detail is bounded and counted in the history's bytes", () => {
    const registry = new RunRegistry({ maxRuns: 10, maxBytes: 200 * 1024 });
    const longRun = (id: string) => {
      registry.start(id, "go");
      for (let turn = 1; turn <= RUN_DETAIL_LIMITS.turns + 5; turn++) {
        registry.observe(id, { type: "model-start", runId: id, turn, messages: turn });
        for (let c = 0; c < 5; c++)
          registry.observe(id, {
            type: "tool-call-start",
            runId: id,
            turn,
            toolCallId: `${turn}-${c}`,
            name: "t",
            argumentsSize: 9999,
            arguments: { blob: "x".repeat(5000) },
          } as RunEvent);
      }
      registry.succeed(id, { stopReason: "final", usage, turns: 55, toolCalls: 275, text: "ok" });
    };
    longRun("long");
    const detail = registry.get("long")!.detail!;
    expect(detail.turns).toHaveLength(RUN_DETAIL_LIMITS.turns);
    expect(detail.turns.reduce((n, t) => n + t.toolCalls.length, 0)).toBe(RUN_DETAIL_LIMITS.toolCalls);
    expect(detail.dropped).toEqual({ turns: 5, toolCalls: 75 });
    expect(detail.turns[0]!.toolCalls[0]!.arguments!.length).toBeLessThanOrEqual(RUN_DETAIL_LIMITS.argumentsChars);
    expect(registry.held().bytes).toBeGreaterThan(JSON.stringify(detail).length);
    // The detail counts: a second such run pushes the first out of a 200 KiB history.
    longRun("long-2");
    expect(registry.get("long")).toBeUndefined();
    expect(registry.expired("long")).toBe(true);
    expect(registry.held().runs).toBe(1);
  });

  test("an operator lists every principal's runs with their owner; a user lists only its own", () => {
    const registry = new RunRegistry();
    registry.start("a", "alice's", "bearer:alice", { via: "mcp" });
    registry.start("b", "bob's", "bearer:bob", { via: "trigger", trigger: "nightly" });
    expect(registry.list({}, "bearer:alice").runs.map((r) => [r.runId, r.principal])).toEqual([["a", undefined]]);
    expect(registry.list({}).runs.map((r) => [r.runId, r.principal])).toEqual([
      ["b", "bearer:bob"],
      ["a", "bearer:alice"],
    ]);
    expect(registry.list({ principal: "bearer:alice" }).runs.map((r) => r.runId)).toEqual(["a"]);
    expect(registry.list({ trigger: "nightly" }).runs.map((r) => r.runId)).toEqual(["b"]);
    expect(registry.list({ via: "mcp" }, "bearer:bob").runs).toEqual([]);
  });
});
