/**
 * The trigger runner with run claims: a real agent (scripted model) per replica, claims in a real store
 * (the MCP store server on a directory). The same event on two replicas runs the agent once; a store that
 * cannot be reached starts no run.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { connectStore } from "@agentd/test-support/connect-store";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { RunClaims } from "../../store/run-claims.ts";
import type { TriggerEvent } from "../index.ts";
import { createAgent } from "../../agent/create-agent.ts";
import { createTriggerRunner, type TriggerAgent } from "./trigger-runner.ts";

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** One replica: a real agent answering "done" once, and the inputs it ran. */
function replica() {
  const agent = createAgent({ model: scriptedModel([reply("done")]), tools: memoryToolSet([]), limits: { maxTurns: 2 } });
  const runs: string[] = [];
  const triggerAgent: TriggerAgent = {
    connect: () => agent.connect(),
    run: (input, options) => {
      runs.push(options.runId);
      return agent.run(input, options);
    },
    clients: new Map(),
  };
  return { triggerAgent, runs };
}

const event: TriggerEvent = {
  triggerId: "sub:inbox:file:///a",
  kind: "subscription",
  key: "file:///a",
  at: new Date(),
  data: {},
  runId: "run-claimed-1",
};
const context = { triggerId: event.triggerId, instruction: "Handle it" };

async function directoryStore() {
  const dir = mkdtempSync(join(tmpdir(), "agentd-runner-claims-"));
  const backend = new DirectoryBackend(dir);
  const c = await connectStore(backend);
  cleanup.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => backend.close(),
    c.close,
  );
  return c.store;
}

test("the same event on two replicas: one runs the agent, the other is already done (claimed elsewhere)", async () => {
  const store = await directoryStore();
  const [a, b] = [replica(), replica()];
  const runA = createTriggerRunner({ agent: a.triggerAgent, claims: new RunClaims({ store, holder: "a", leaseMs: 1_000 }) });
  const runB = createTriggerRunner({ agent: b.triggerAgent, claims: new RunClaims({ store, holder: "b", leaseMs: 1_000 }) });
  const live = new AbortController().signal;
  const [oa, ob] = await Promise.all([runA.run(event, live, context), runB.run(event, live, context)]);
  expect([oa.status, ob.status].sort()).toEqual(["already-done", "ok"]);
  expect([...a.runs, ...b.runs]).toEqual(["run-claimed-1"]);
  expect([oa, ob].find((o) => o.status === "already-done")?.data).toEqual({ claimedElsewhere: true });
  expect((await store.get(RunClaims.key("run-claimed-1")))?.value).toMatchObject({ state: "done" });
});

test("a store that cannot be reached: the run fails without starting, saying why", async () => {
  const store = await directoryStore();
  await store.mcp.close();
  const a = replica();
  const runner = createTriggerRunner({ agent: a.triggerAgent, claims: new RunClaims({ store, holder: "a" }) });
  const outcome = await runner.run(event, new AbortController().signal, context);
  expect(outcome.status).toBe("failed");
  expect(outcome.message).toStartWith("cannot claim the run in the store: ");
  expect(a.runs).toEqual([]);
});
