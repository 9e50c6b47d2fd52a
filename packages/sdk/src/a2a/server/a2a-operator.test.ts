/**
 * The operator channel over A2A (JSON-RPC on 127.0.0.1, bearer auth): only an operator token's holder may
 * call `agentd/status` and `agentd/cancel`; the operator sees and cancels another principal's task; every
 * call, and every refusal, is logged with its principal.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { echo, gate, serveA2aAgent, type ServedAgent } from "../../agent/__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const USER = "user-token-0123456789ab";
const OPS = "ops-token-0123456789abcd";
let s: ServedAgent | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function rpc(base: string, token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}

test("an operator sees every principal's tasks and cancels one; a user is refused; each call is logged", async () => {
  const g = gate();
  const logger = memoryLogger();
  s = await serveA2aAgent({
    steps: [g.step],
    logger,
    http: {
      auth: {
        bearerTokens: [
          { token: USER, name: "user" },
          { token: OPS, name: "ops", role: "operator" },
        ],
      },
    },
  });
  const sent = await rpc(s.base, USER, "SendMessage", {
    message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "work" }] },
    configuration: { returnImmediately: true },
  });
  const id = sent.result.task.id;
  await g.entered;

  const refused = await rpc(s.base, USER, "agentd/status", {});
  expect(refused.error.code).toBe(-32050);
  expect(refused.error.data[0].reason).toBe("PERMISSION_DENIED");
  expect(refused.error.message).toContain("for operators");

  const status = await rpc(s.base, OPS, "agentd/status", {});
  expect(status.result.running).toHaveLength(1);
  expect(status.result.a2aTasks).toEqual([
    { principal: "bearer:user", id, contextId: sent.result.task.contextId, state: "TASK_STATE_WORKING" },
  ]);

  const canceled = await rpc(s.base, OPS, "agentd/cancel", { id });
  expect(canceled.result.canceled).toEqual([{ principal: "bearer:user", id }]);
  const seen = await rpc(s.base, USER, "GetTask", { id });
  expect(seen.result.status.state).toBe("TASK_STATE_CANCELED");
  expect((await rpc(s.base, OPS, "agentd/cancel", { id })).error.code).toBe(-32001);

  const lines = logger.records.filter((r) => r.event.startsWith("a2a.operator"));
  expect(lines.map((r) => [r.event, r.principal, r.method])).toEqual([
    ["a2a.operator.refused", "bearer:user", "agentd/status"],
    ["a2a.operator", "bearer:ops", "agentd/status"],
    ["a2a.operator", "bearer:ops", "agentd/cancel"],
  ]);
});

const ASK = (text: string) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
  configuration: { returnImmediately: true },
});
const opsAuth = {
  auth: {
    bearerTokens: [
      { token: USER, name: "user" },
      { token: OPS, name: "ops", role: "operator" as const },
    ],
  },
};

test("drain: status says draining, new work is refused, the task in flight finishes, then drained", async () => {
  const g = gate();
  s = await serveA2aAgent({ steps: [g.step, echo], http: opsAuth });
  const sent = await rpc(s.base, USER, "SendMessage", ASK("long"));
  await g.entered;
  const draining = await rpc(s.base, OPS, "agentd/drain", {});
  expect(draining.result).toMatchObject({ state: "draining", inFlight: 1 });
  expect((await rpc(s.base, OPS, "agentd/status", {})).result.lifecycle.state).toBe("draining");
  const refused = await rpc(s.base, USER, "SendMessage", { ...ASK("more"), configuration: {} });
  expect(refused.result.task.status.state).toBe("TASK_STATE_FAILED");
  expect(JSON.stringify(refused.result.task.status.message)).toContain("shutting down");
  g.release();
  const drained = await rpc(s.base, OPS, "agentd/drain", { wait: true });
  expect(drained.result).toMatchObject({ state: "drained", inFlight: 0 });
  expect((await rpc(s.base, USER, "GetTask", { id: sent.result.task.id })).result.status.state).toBe("TASK_STATE_COMPLETED");
  const health = await fetch(`${s.base}/readyz`);
  expect(health.status).toBe(503);
});

test("cancel reaches a run the embedding program started (by its run id), and { all: true } every run", async () => {
  const g = gate();
  const held = gate();
  s = await serveA2aAgent({ steps: [g.step, held.step], http: opsAuth });
  const direct = s.agent.run("direct work", { runId: "direct-1" });
  const failed = direct.catch((e: unknown) => e);
  await g.entered;
  expect((await rpc(s.base, OPS, "agentd/cancel", { id: "direct-1" })).result.canceled).toEqual([{ id: "direct-1" }]);
  expect(((await failed) as { code?: string }).code).toBe("E_ABORTED");
  const sent = await rpc(s.base, USER, "SendMessage", ASK("other"));
  await held.entered;
  const all = await rpc(s.base, OPS, "agentd/cancel", { all: true });
  expect(all.result.canceled).toEqual([{ principal: "bearer:user", id: sent.result.task.id }]);
  expect((await rpc(s.base, USER, "agentd/cancel", { all: true })).error.code).toBe(-32050);
});

test("pause and resume triggers: paused runs nothing, resumed re-arms (an interval runs at once); unknown ids are refused", async () => {
  const logger = memoryLogger();
  s = await serveA2aAgent({
    steps: Array.from({ length: 10 }, () => echo),
    http: opsAuth,
    logger,
    agent: { triggers: { specs: [{ kind: "interval", id: "interval", everyMs: 3_600_000, instruction: "tick" }] } },
  });
  const ends: string[] = [];
  let wake: (() => void) | undefined;
  s.agent.triggers!.on("run-end", (e) => (ends.push(e.runId), wake?.()));
  await s.agent.start();
  while (ends.length < 1) await new Promise<void>((r) => (wake = r));
  expect((await rpc(s.base, OPS, "agentd/pause", {})).result).toEqual({ paused: ["interval"] });
  const status = await rpc(s.base, OPS, "agentd/status", {});
  expect(status.result.triggers[0]).toMatchObject({ id: "interval", state: "paused" });
  expect((await rpc(s.base, OPS, "agentd/resume", { triggers: ["interval"] })).result).toEqual({ resumed: ["interval"] });
  while (ends.length < 2) await new Promise<void>((r) => (wake = r));
  const unknown = await rpc(s.base, OPS, "agentd/pause", { triggers: ["nope"] });
  expect(unknown.error.code).toBe(-32602);
  expect(unknown.error.message).toContain("no trigger named 'nope'");
  expect((await rpc(s.base, USER, "agentd/resume", {})).error.code).toBe(-32050);
  expect(logger.records.filter((r) => r.event === "a2a.operator").map((r) => [r.method, r.triggers])).toEqual([
    ["agentd/pause", ["interval"]],
    ["agentd/status", undefined],
    ["agentd/resume", ["interval"]],
  ]);
});

test("the extended card lists the operator's skills to an operator only; the public card never", async () => {
  s = await serveA2aAgent({ http: opsAuth });
  const skills = async (token?: string) => {
    const res = await fetch(`${s!.base}${token ? "/a2a/rest/extendedAgentCard" : "/.well-known/agent-card.json"}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
    return ((await res.json()) as { skills: { id: string }[] }).skills.map((k) => k.id);
  };
  expect(await skills(OPS)).toEqual([
    "run",
    "agentd/status",
    "agentd/cancel",
    "agentd/drain",
    "agentd/pause",
    "agentd/resume",
    "agentd/reload",
  ]);
  expect(await skills(USER)).toEqual(["run"]);
  expect(await skills()).toEqual(["run"]);
});

test("SIGTERM's drain during an operator's unbounded drain: its own grace bounds the wait, then what is left is cancelled", async () => {
  const g = gate();
  s = await serveA2aAgent({ steps: [g.step], http: opsAuth });
  await rpc(s.base, USER, "SendMessage", ASK("long"));
  await g.entered;
  expect((await rpc(s.base, OPS, "agentd/drain", {})).result.state).toBe("draining");
  const ended = new Promise<string>((r) => s!.agent.on((e) => void (e.type === "run-end" && r(e.stopReason ?? ""))));
  await s.agent.drain(100, "SIGTERM");
  expect(s.agent.status().state).toBe("closed");
  expect(await ended).toBe("aborted");
});
