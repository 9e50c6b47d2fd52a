/**
 * Following a remote task by push notifications (`a2aAgents.NAME.push`): the message goes with a webhook
 * on 127.0.0.1 and its token; the `@a2a-js/sdk` peer's own sender POSTs the task's events there; they
 * become the call's progress and answer. The webhook takes only its token: a forged POST is refused.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startPeer } from "@agentd/test-support/a2a-peer";
import { createLogger, type LogRecord } from "../../log.ts";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ToolResultPart } from "../../model/language-model.ts";
import { createAgent } from "../../agent/create-agent.ts";

setDefaultTimeout(30_000);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("a long task is followed through the webhook; the events become progress and the answer; forged POSTs are refused", async () => {
  const peer = await startPeer({ push: true });
  cleanups.push(() => peer.close());
  const records: LogRecord[] = [];
  const logger = createLogger((r) => records.push(r));
  let seen: ToolResultPart | undefined;
  const model = scriptedModel([
    callTools([["a2a_peer", { message: "hang" }]]),
    (request) => {
      seen = request.messages.flatMap((m) => (m.role === "tool" ? m.content : [])).at(-1);
      return reply("done");
    },
  ]);
  const agent = createAgent({ model, a2aAgents: { peer: { url: peer.url, push: true } }, logger });
  cleanups.push(() => agent.close());
  const run = agent.run("delegate", { runId: "run-push" });

  const hook = await peer.pushConfig;
  expect(new URL(hook.url).hostname).toBe("127.0.0.1");
  expect(hook.token.length).toBeGreaterThanOrEqual(24);
  const id = await peer.hanging;
  const event = JSON.stringify({ statusUpdate: { taskId: id, contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } });
  const forged = (headers: Record<string, string>) =>
    fetch(hook.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: event });
  expect((await forged({})).status).toBe(401);
  expect((await forged({ "x-a2a-notification-token": `${hook.token}x` })).status).toBe(401);
  expect(
    (
      await fetch(`${new URL(hook.url).origin}/a2a-push/unknown`, {
        method: "POST",
        headers: { "x-a2a-notification-token": hook.token },
        body: event,
      })
    ).status,
  ).toBe(404);
  expect(
    (await fetch(hook.url, { method: "POST", headers: { "x-a2a-notification-token": hook.token }, body: '{"not":"an event"}' })).status,
  ).toBe(400);

  peer.finish(id);
  const result = await run;
  expect(result.text).toBe("done");
  expect(seen?.output).toContain("finished");
  // The peer's sender delivered the task's end; the call reported it (a2a.status, as tool progress).
  const states = peer.pushed
    .map((e) => (e as { payload?: { $case: string; value: { status?: { state: number } } } }).payload)
    .filter((p) => p?.$case === "statusUpdate")
    .map((p) => p!.value.status?.state);
  expect(states).toContain(3);
  expect(
    records
      .filter((r) => r.event === "a2a.status")
      .map((r) => r.state)
      .at(-1),
  ).toBe("completed");
  // Refusals are logged, never with the token.
  expect(records.filter((r) => r.event === "a2a.push.refused").map((r) => r.status)).toEqual([401, 401, 404, 400]);
  expect(JSON.stringify(records)).not.toContain(hook.token);
});
