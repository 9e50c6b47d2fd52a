/**
 * The operator channel over A2A (JSON-RPC on 127.0.0.1, bearer auth): only an operator token's holder may
 * call `agentd/status` and `agentd/cancel`; the operator sees and cancels another principal's task; every
 * call, and every refusal, is logged with its principal.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { gate, serveA2aAgent, type ServedAgent } from "./__fixtures__/a2a-agent.ts";

setDefaultTimeout(30_000);

const USER = "user-token-0123456789ab";
const OPS = "ops-token-0123456789abcd";
let s: ServedAgent | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function rpc(base: string, token: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${base}/a2a`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "a2a-version": "1.0" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return res.json();
}

test("an operator sees every principal's tasks and cancels one; a user is refused; each call is logged", async () => {
  const g = gate();
  const logger = memoryLogger();
  s = await serveA2aAgent({ steps: [g.step], logger, http: { auth: { bearerTokens: [{ token: USER, name: "user" }, { token: OPS, name: "ops", role: "operator" }] } } });
  const sent = await rpc(s.base, USER, "SendMessage", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "work" }] }, configuration: { returnImmediately: true } });
  const id = sent.result.task.id;
  await g.entered;

  const refused = await rpc(s.base, USER, "agentd/status", {});
  expect(refused.error.code).toBe(-32050);
  expect(refused.error.data[0].reason).toBe("PERMISSION_DENIED");
  expect(refused.error.message).toContain("for operators");

  const status = await rpc(s.base, OPS, "agentd/status", {});
  expect(status.result.running).toHaveLength(1);
  expect(status.result.a2aTasks).toEqual([{ principal: "bearer:user", id, contextId: sent.result.task.contextId, state: "TASK_STATE_WORKING" }]);

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
