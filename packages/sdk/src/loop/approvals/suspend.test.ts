/**
 * A run that suspends for a decision (runLoop over in-memory tools and a scripted model): the turn's other
 * calls run, the run stops waiting with the pending questions and its state, holding no model request open;
 * continued with the decisions, the approved call is made once with the saved arguments, the denied one is
 * refused, the results go back in the model's order and the budgets count what the first part used.
 */
import { describe, expect, test } from "bun:test";
import { callTools, hangUntilAborted, reply, scriptedModel } from "../__fixtures__/scripted-model.ts";
import { memoryToolSet } from "../__fixtures__/memory-tools.ts";
import type { RunEvent } from "../events.ts";
import { runLoop } from "../run-loop.ts";
import type { RunSuspension } from "../run-suspension.ts";
import type { ApprovalDecision, ApprovalRequest } from "./approval-types.ts";

function tools() {
  return memoryToolSet([
    { name: "fs/delete_file", inputSchema: { type: "object", properties: { path: { type: "string" } } }, run: (a) => `deleted ${a.path}` },
    { name: "fs/read_file", run: () => "contents" },
  ]);
}
const RULES = [{ tool: "fs/delete_*", decision: "ask" as const }];

async function suspendOnce() {
  const toolSet = tools();
  const posted: ApprovalRequest[] = [];
  let saved: RunSuspension | undefined;
  const events: RunEvent[] = [];
  const model = scriptedModel([
    callTools([
      ["fs__delete_file", { path: "/a" }],
      ["fs__read_file", {}],
      ["fs__delete_file", { path: "/b" }],
    ]),
  ]);
  const result = await runLoop({
    model,
    tools: toolSet,
    input: "clean up",
    runId: "run-s",
    approvals: { rules: RULES, suspend: async (r) => void posted.push(r) },
    onSuspend: async (s) => void (saved = s),
    onEvent: (e) => events.push(e),
  });
  return { toolSet, posted, saved: saved!, events, result, model };
}

describe("a run that suspends", () => {
  test("the other calls run; the run ends waiting with the pending questions and its state", async () => {
    const { toolSet, posted, saved, events, result, model } = await suspendOnce();
    expect(toolSet.calls.map((c) => c.name)).toEqual(["fs/read_file"]);
    expect(model.requests).toHaveLength(1);
    expect(result).toMatchObject({ status: "waiting", stopReason: "waiting", runId: "run-s", turns: 1, toolCalls: 3 });
    expect(result.text).toBeUndefined();
    expect(result.pending?.map((p) => p.arguments.path)).toEqual(["/a", "/b"]);
    expect(posted.map((p) => p.id)).toEqual(result.pending!.map((p) => p.id));
    expect(saved.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(saved.results.map((r) => r.toolName)).toEqual(["fs__read_file"]);
    expect(saved.pending.map((p) => p.call.input)).toEqual([{ path: "/a" }, { path: "/b" }]);
    expect(events.filter((e) => e.type === "approval-requested")).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: "run-end", stopReason: "waiting" });
  });

  test("continued: approved made once with the saved arguments, denied refused, results in the model's order", async () => {
    const first = await suspendOnce();
    const [a, b] = first.result.pending!;
    const toolSet = tools();
    const model = scriptedModel([reply("done")]);
    const decisions = new Map<string, ApprovalDecision>([
      [a!.id, { decision: "approve", by: "ops", digest: a!.digest }],
      [b!.id, { decision: "deny", by: "ops", reason: "keep /b" }],
    ]);
    const events: RunEvent[] = [];
    const result = await runLoop({
      model,
      tools: toolSet,
      input: "",
      runId: "run-s",
      approvals: { rules: RULES, suspend: async () => {} },
      continueFrom: { suspension: first.saved, decisions },
      onEvent: (e) => events.push(e),
    });
    expect(result).toMatchObject({ status: "finished", text: "done", turns: 2, toolCalls: 3 });
    expect(result.usage.inputTokens).toBe(20);
    expect(toolSet.calls.map((c) => [c.name, c.args])).toEqual([["fs/delete_file", { path: "/a" }]]);
    const tool = model.requests[0]!.messages.at(-1)!;
    expect(tool.role).toBe("tool");
    const parts = tool.role === "tool" ? tool.content : [];
    expect(parts.map((p) => p.toolName)).toEqual(["fs__delete_file", "fs__read_file", "fs__delete_file"]);
    expect(parts[0]!.output).toContain("deleted /a");
    expect(parts[2]!.isError).toBe(true);
    expect(parts[2]!.output).toContain("keep /b");
    expect(events.filter((e) => e.type === "approval-requested")).toHaveLength(0);
    expect(events.filter((e) => e.type === "approval-decided").map((e) => e.type === "approval-decided" && e.decision)).toEqual([
      "approve",
      "deny",
    ]);
  });

  test("the deadline counts running time only: a continued run has what its first part left", async () => {
    const first = await suspendOnce();
    const [a, b] = first.result.pending!;
    const decisions = new Map<string, ApprovalDecision>([
      [a!.id, { decision: "approve" }],
      [b!.id, { decision: "deny" }],
    ]);
    // The first part ran 59.95 s of a 60 s deadline (however long it then waited): 50 ms are left.
    const suspension = { ...first.saved, elapsedMs: 59_950 };
    const started = performance.now();
    const e = await runLoop({
      model: scriptedModel([hangUntilAborted(() => {})]),
      tools: tools(),
      input: "",
      runId: "run-s",
      limits: { deadlineMs: 60_000 },
      approvals: { rules: RULES },
      continueFrom: { suspension, decisions },
    }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: "E_BUDGET_DEADLINE" });
    expect((e as Error).message).toContain("60000 ms");
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  test("a decision bound to other arguments denies", async () => {
    const first = await suspendOnce();
    const [a, b] = first.result.pending!;
    const toolSet = tools();
    const decisions = new Map<string, ApprovalDecision>([
      [a!.id, { decision: "approve", digest: b!.digest }],
      [b!.id, { decision: "deny" }],
    ]);
    await runLoop({
      model: scriptedModel([reply("done")]),
      tools: toolSet,
      input: "",
      runId: "run-s",
      approvals: { rules: RULES },
      continueFrom: { suspension: first.saved, decisions },
    });
    expect(toolSet.calls).toEqual([]);
  });

  test("JSON-action mode does not suspend: with no channel the call is denied, as before", async () => {
    const toolSet = tools();
    const model = scriptedModel(
      [reply('{"action":"tool","tool":"fs/delete_file","arguments":{"path":"/a"}}'), reply('{"action":"final","result":"done"}')],
      { supportsTools: false },
    );
    const result = await runLoop({ model, tools: toolSet, input: "go", runId: "r", approvals: { rules: RULES, suspend: async () => {} } });
    expect(result.status).toBe("finished");
    expect(toolSet.calls).toEqual([]);
  });
});
