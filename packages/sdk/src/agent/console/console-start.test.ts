/** Starting a run from the console: operators only, JSON only, budgets checked, recorded as agent.run records it. */
import { expect, test } from "bun:test";
import { nullLogger } from "../../log.ts";
import type { Principal } from "../../serve/principal.ts";
import { RunRegistry } from "../../serve/run-registry.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import { startFromConsole } from "./console-start.ts";

const ops: Principal = { id: "bearer:operator#0", role: "operator" };
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
const post = (body: unknown, type = "application/json") =>
  new Request("http://127.0.0.1/console/api/start", { method: "POST", headers: { "content-type": type }, body: JSON.stringify(body) });

test("an operator's start runs with its budgets and is recorded; others, other media types and bad budgets are refused", async () => {
  const registry = new RunRegistry();
  const seen: unknown[] = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const runner: ServedRunner = {
    run: async (input, o) => {
      seen.push({ input, runId: o.runId, limits: o.limits });
      o.onEvent?.({ type: "model-start", runId: o.runId!, turn: 1, messages: 2 });
      queueMicrotask(finish);
      return { text: `did ${input}`, usage, turns: 1, runId: o.runId!, stopReason: "final", toolCalls: 0 };
    },
  };
  const o = { registry, runner, logger: nullLogger };
  const user: Principal = { id: "bearer:bearer#0", role: "user" };
  expect((await startFromConsole(post({ instruction: "x" }), user, o)).status).toBe(403);
  expect((await startFromConsole(post({ instruction: "x" }, "text/plain"), ops, o)).status).toBe(415);
  const bad = await startFromConsole(post({ instruction: "x", maxTurns: 1.5 }), ops, o);
  expect(bad).toEqual({ status: 400, body: { error: { code: "InvalidParams", message: "maxTurns: a whole number" } } });
  expect((await startFromConsole(post({ instruction: " " }), ops, o)).status).toBe(400);
  const ok = await startFromConsole(post({ instruction: "tidy up", runId: "c-1", maxTurns: 2, deadlineMs: 5000 }), ops, o);
  expect(ok).toEqual({ status: 202, body: { result: { runId: "c-1", principal: ops.id } } });
  await done;
  await Promise.resolve();
  expect(seen).toMatchObject([{ input: "tidy up", limits: { maxTurns: 2, deadlineMs: 5000 } }]);
  const record = registry.get("c-1", ops.id);
  expect(record).toMatchObject({ status: "succeeded", via: "console", result: { text: "did tidy up" } });
  expect(record?.detail?.turns).toHaveLength(1);
});

test("a start naming a conversation continues the operator's own and links the run to it; a bad name is one line", async () => {
  const registry = new RunRegistry();
  const seen: unknown[] = [];
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  const runner: ServedRunner = {
    run: async (_input, o) => {
      seen.push({ conversation: o.conversation, principal: o.principal });
      queueMicrotask(finish);
      return { text: "ok", usage, turns: 1, runId: o.runId!, stopReason: "final", toolCalls: 0 };
    },
  };
  const o = { registry, runner, logger: nullLogger };
  const bad = await startFromConsole(post({ instruction: "x", conversation: "../etc" }), ops, o);
  expect(bad).toEqual({
    status: 400,
    body: {
      error: { code: "InvalidParams", message: "conversation: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit" },
    },
  });
  expect((await startFromConsole(post({ instruction: "go on", runId: "c-2", conversation: "inbox" }), ops, o)).status).toBe(202);
  expect(registry.get("c-2", ops.id)?.conversationId).toBe("inbox");
  await done;
  expect(seen).toEqual([{ conversation: "inbox", principal: ops.id }]);
});

test("a start under the id of a run that waits for a decision is refused, naming where to decide it; the waiting run is untouched", async () => {
  const registry = new RunRegistry();
  let calls = 0;
  const runner: ServedRunner = {
    run: async (_input, o) => {
      calls++;
      return { text: "ok", usage, turns: 1, runId: o.runId!, stopReason: "final", toolCalls: 0 };
    },
  };
  registry.start("c-3", "clean up", ops.id, { via: "console" });
  registry.succeed("c-3", { stopReason: "waiting", usage, turns: 1, toolCalls: 0 }, ops.id);
  const again = await startFromConsole(post({ instruction: "clean up", runId: "c-3" }), ops, { registry, runner, logger: nullLogger });
  expect(again).toEqual({
    status: 409,
    body: {
      error: { code: "UnsupportedOperation", message: "run c-3 waits for a decision on a tool call: decide it on the Questions page" },
    },
  });
  expect(calls).toBe(0);
  expect(registry.get("c-3", ops.id)?.status).toBe("waiting");
});
