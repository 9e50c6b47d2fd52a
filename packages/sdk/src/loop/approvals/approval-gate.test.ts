/**
 * The approval gate inside the loop (runLoop over in-memory tools and a scripted model): a call the rules
 * hold waits for the channel's decision; approved calls run, denied ones never reach the tool and the model
 * reads why; "always" covers that tool for the rest of the run only; a decision bound to other arguments
 * denies; a timeout decides as configured; no channel denies; no rules leaves the path untouched.
 */
import { describe, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { callTools, reply, scriptedModel } from "../__fixtures__/scripted-model.ts";
import { memoryToolSet } from "../__fixtures__/memory-tools.ts";
import type { RunEvent } from "../events.ts";
import { runLoop } from "../run-loop.ts";
import type { ModelRequest, ToolResultPart } from "../../model/language-model.ts";
import type { ApprovalDecision, ApprovalRequest, RunApprovals } from "./approval-types.ts";

const results = (request: ModelRequest): ToolResultPart[] => request.messages.flatMap((m) => (m.role === "tool" ? m.content : []));

function tools() {
  return memoryToolSet([
    { name: "fs/delete_file", inputSchema: { type: "object", properties: { path: { type: "string" } } }, run: (a) => `deleted ${a.path}` },
    { name: "fs/read_file", run: () => "contents" },
  ]);
}

/** Run: the model calls `calls` in one turn, then answers with the tool results it read. */
async function run(calls: Array<[string, Record<string, unknown>]>, approvals: RunApprovals | undefined, turns = 1) {
  const toolSet = tools();
  const steps = [...Array.from({ length: turns }, () => callTools(calls)), reply("done")];
  const model = scriptedModel(steps);
  const events: RunEvent[] = [];
  const log = memoryLogger();
  await runLoop({ model, tools: toolSet, input: "clean up", runId: "run-gate", approvals, onEvent: (e) => events.push(e), logger: log });
  return { toolSet, model, events, log, read: (turn: number) => results(model.requests[turn]!) };
}

const ASK_DELETE = [{ tool: "fs/delete_*", decision: "ask" as const }];

describe("the approval gate", () => {
  test("no rules: calls are made as before and no approval event is emitted", async () => {
    const r = await run([["fs__delete_file", { path: "/a" }]], undefined);
    expect(r.toolSet.calls.map((c) => c.name)).toEqual(["fs/delete_file"]);
    expect(r.events.some((e) => e.type.startsWith("approval-"))).toBe(false);
  });

  test("approve: the call is made with its arguments; the request names the tool, masked arguments, digest and rule", async () => {
    const asked: ApprovalRequest[] = [];
    const r = await run([["fs__delete_file", { path: "/a", apiKey: "sk-secret-value-123456" }]], {
      rules: ASK_DELETE,
      channel: { ask: async (req) => (asked.push(req), { decision: "approve", by: "alice" }) },
    });
    expect(r.toolSet.calls.map((c) => [c.name, c.args.path])).toEqual([["fs/delete_file", "/a"]]);
    const req = asked[0]!;
    expect(req).toMatchObject({ runId: "run-gate", server: "fs", tool: "delete_file", name: "fs/delete_file" });
    expect(req.arguments.apiKey).toBe("[redacted]");
    expect(req.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(req.rule.label).toBe('approvals.rules[0] (tool "fs/delete_*" → ask)');
    const decided = r.events.find((e) => e.type === "approval-decided");
    expect(decided).toMatchObject({ decision: "approve", by: "alice", requestId: req.id });
    expect(r.log.records.map((x) => x.event)).toEqual(expect.arrayContaining(["approval.requested", "approval.decided"]));
    // The masked arguments never reach an info-level record.
    expect(JSON.stringify(r.log.records.filter((x) => x.event === "approval.requested"))).not.toContain("/a");
  });

  test("deny: the tool is never called; the model reads the denial with its reason", async () => {
    const r = await run(
      [
        ["fs__delete_file", { path: "/etc" }],
        ["fs__read_file", {}],
      ],
      {
        rules: ASK_DELETE,
        channel: { ask: async () => ({ decision: "deny", by: "bob", reason: "not /etc" }) },
      },
    );
    expect(r.toolSet.calls.map((c) => c.name)).toEqual(["fs/read_file"]);
    const [deleted, read] = r.read(1);
    expect(deleted?.isError).toBe(true);
    expect(deleted?.output).toContain('the call to "fs/delete_file" was denied');
    expect(deleted?.output).toContain("decided by bob): not /etc");
    expect(read?.isError).toBeUndefined();
  });

  test("a deny rule refuses at once with its message, asking nobody", async () => {
    let asked = 0;
    const r = await run([["fs__delete_file", { path: "/a" }]], {
      rules: [{ tool: "fs/delete_*", decision: "deny", message: "deletions are done by hand" }],
      channel: { ask: async () => (asked++, { decision: "approve" }) },
    });
    expect(asked).toBe(0);
    expect(r.toolSet.calls).toEqual([]);
    expect(r.read(1)[0]?.output).toContain("deletions are done by hand");
  });

  test("always: later calls of that tool in the run are not asked; other tools still are", async () => {
    const asked: string[] = [];
    const r = await run(
      [
        ["fs__delete_file", { path: "/a" }],
        ["fs__delete_file", { path: "/b" }],
        ["fs__read_file", {}],
      ],
      {
        rules: [{ tool: "fs/*", decision: "ask" }],
        channel: {
          ask: async (req) => (
            asked.push(`${req.name} ${JSON.stringify(req.arguments)}`),
            req.tool === "delete_file" ? { decision: "always" } : { decision: "approve" }
          ),
        },
      },
      2,
    );
    // One question for delete_file in the whole run (the second call of turn 1 and both of turn 2 pass), one
    // for read_file in each turn.
    expect(asked).toEqual(['fs/delete_file {"path":"/a"}', "fs/read_file {}", "fs/read_file {}"]);
    expect(r.toolSet.calls).toHaveLength(6);
  });

  test("a decision bound to other arguments' digest is a denial", async () => {
    const r = await run([["fs__delete_file", { path: "/a" }]], {
      rules: ASK_DELETE,
      channel: { ask: async () => ({ decision: "approve", digest: "0".repeat(64) }) },
    });
    expect(r.toolSet.calls).toEqual([]);
    expect(r.read(1)[0]?.output).toContain("other arguments");
  });

  test("a decision bound to this call's digest is taken", async () => {
    const r = await run([["fs__delete_file", { path: "/a" }]], {
      rules: ASK_DELETE,
      channel: { ask: async (req) => ({ decision: "approve", digest: req.digest }) },
    });
    expect(r.toolSet.calls).toHaveLength(1);
  });

  test("no channel: the call is denied, naming the rule and where a person could answer", async () => {
    const r = await run([["fs__delete_file", { path: "/a" }]], { rules: ASK_DELETE, unansweredHint: "run it in a terminal" });
    expect(r.toolSet.calls).toEqual([]);
    const out = r.read(1)[0]?.output ?? "";
    expect(out).toContain("none could be asked (run it in a terminal)");
    expect(out).toContain('approvals.rules[0] (tool "fs/delete_*" → ask)');
    expect(r.events.find((e) => e.type === "approval-decided")).toMatchObject({ decision: "deny", by: "nobody" });
  });

  test("timeout: the configured decision is taken and the channel's signal aborts", async () => {
    let channelSignal: AbortSignal | undefined;
    const never = (_req: ApprovalRequest, signal: AbortSignal) => ((channelSignal = signal), new Promise<ApprovalDecision>(() => {}));
    const denied = await run([["fs__delete_file", { path: "/a" }]], { rules: ASK_DELETE, channel: { ask: never }, timeoutMs: 50 });
    expect(denied.toolSet.calls).toEqual([]);
    expect(denied.events.find((e) => e.type === "approval-decided")).toMatchObject({ decision: "deny", by: "timeout" });
    expect(channelSignal?.aborted).toBe(true);
    const approved = await run([["fs__delete_file", { path: "/a" }]], {
      rules: ASK_DELETE,
      channel: { ask: never },
      timeoutMs: 50,
      onTimeout: "approve",
    });
    expect(approved.toolSet.calls).toHaveLength(1);
  });

  test("a channel that fails or answers nonsense denies", async () => {
    const failed = await run([["fs__delete_file", { path: "/a" }]], {
      rules: ASK_DELETE,
      channel: { ask: async () => Promise.reject(new Error("socket closed")) },
    });
    expect(failed.read(1)[0]?.output).toContain("the approval channel failed: socket closed");
    const odd = await run([["fs__delete_file", { path: "/a" }]], {
      rules: ASK_DELETE,
      channel: { ask: async () => ({ decision: "yes" }) as unknown as ApprovalDecision },
    });
    expect(odd.toolSet.calls).toEqual([]);
  });

  test("questions of one turn are asked one at a time, in the model's order", async () => {
    let open = 0;
    let most = 0;
    const order: string[] = [];
    await run(
      [
        ["fs__delete_file", { path: "/1" }],
        ["fs__delete_file", { path: "/2" }],
      ],
      {
        rules: ASK_DELETE,
        channel: {
          ask: async (req) => {
            most = Math.max(most, ++open);
            order.push(String(req.arguments.path));
            await Promise.resolve();
            open--;
            return { decision: "approve" };
          },
        },
      },
    );
    expect(most).toBe(1);
    expect(order).toEqual(["/1", "/2"]);
  });
});
