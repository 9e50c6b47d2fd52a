/**
 * The checkpoint is an optimisation, never the source of truth: one scenario, run with and without it,
 * with real `agentd run --mode reactive` processes, a real `agentd store --dir`, and kill -9 of agentd
 * (its whole process tree) in the middle of a run, then a restart on the same config.
 *
 * A declared subscription ("Dispatch") makes its run arrange a subscription for itself (`agent.subscribe`
 * on the orders resource); each order is acknowledged through a recording tool. agentd is killed while the
 * second order's run waits on a slow tool. After the restart, both ways, the second order is acknowledged
 * exactly once, under the same run id, and the self-arranged subscription is live again:
 * - with the checkpoint, it is restored from the store before any trigger starts (and the re-triggered
 *   Dispatch run finds it `already-subscribed`);
 * - without it, it is lost (the documented default) and arranged again by the Dispatch run, which
 *   reconciliation re-triggers under its unchanged run id.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll, type AgentdProcess } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");
const RUN_ID = "agentd.dev/run-id";
const SELF_TRIGGER = "self:orders:file-watch://state";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await stopAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tool = (req: RecordedRequest, pattern: RegExp): string => {
  const name = req.tools.find((n) => pattern.test(n));
  if (!name) throw new Error(`no tool matching ${pattern} in ${req.tools.join(",")}`);
  return name;
};

interface Outcome {
  ackRunIds: string[];
  orderRunIds: string[];
  restarted: AgentdProcess;
  subscribeAnswers: string[];
}

async function scenario(checkpoint: boolean): Promise<Outcome> {
  const ws = new CliWorkspace();
  cleanups.push(() => ws.cleanup());
  const dispatch = join(ws.dir, "dispatch.txt");
  const orders = join(ws.dir, "orders.txt");
  writeFileSync(dispatch, "watch the orders");
  writeFileSync(orders, "order 1");
  let slowStarted = false;
  const subscribeAnswers: string[] = [];
  const gateway: FakeGateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const instruction = instructionOf(req);
        if (instruction.startsWith("Dispatch")) {
          if (req.lastToolResult !== undefined) {
            subscribeAnswers.push(String(req.lastToolResult));
            return { text: "dispatched" };
          }
          const args = { server: "orders", uri: "file-watch://state", instruction: "Order: {{resource.text}}" };
          return { toolCalls: [{ name: tool(req, /agent.subscribe$/), arguments: args }] };
        }
        if (req.lastToolResult !== undefined) return { text: `done: ${instruction}` };
        // The second order's first run hangs on a slow tool: agentd is killed meanwhile.
        const slow = instruction.endsWith("order 2") && !slowStarted;
        if (slow) slowStarted = true;
        return { toolCalls: [{ name: toolLike(req, slow ? "slow" : "ack"), arguments: {} }] };
      },
    ],
  });
  cleanups.push(() => gateway.close());
  const recorder: FakeServerCommand = fakeServerCommand({
    tools: [
      { name: "ack", text: "acked" },
      { name: "slow", delayMs: 600_000, text: "late" },
    ],
  });
  cleanups.push(() => recorder.dispose());
  // One record file for both agentd processes' recorder children; no control socket.
  const rec = { command: recorder.command, args: recorder.args.filter((a, i, all) => a !== "--control" && all[i - 1] !== "--control") };
  const config = join(ws.dir, "agentd.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        flat: { command: process.execPath, args: [FILE_SERVER, dispatch] },
        orders: { command: process.execPath, args: [FILE_SERVER, orders] },
        rec,
      },
      triggers: {
        subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Dispatch: {{resource.text}}", pollInterval: "150ms" }],
        selfSubscribe: { servers: ["orders"], max: 4, pollInterval: "150ms" },
      },
      ...(checkpoint
        ? {
            capabilities: { checkpoint: true },
            durability: {
              checkpoint: {
                store: { command: process.execPath, args: [CLI_MAIN, "store", "--dir", join(ws.dir, "store")] },
                identity: "pod-0",
                debounce: "20ms",
              },
            },
          }
        : {}),
    }),
  );
  const start = () => startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], { cwd: ws.dir, env: modelEnv(gateway) });
  const calls = () => recorder.recordedRequests().filter((r) => r.method === "tools/call");

  const first = start();
  // Dispatch ran and arranged the subscription; the first order was acknowledged.
  await first.waitFor("trigger.run-end", 1, (e) => e.trigger === SELF_TRIGGER && e.status === "ok");
  await first.waitFor("trigger.run-end", 1, (e) => e.trigger !== SELF_TRIGGER);
  expect(first.named("trigger.self-subscribed")).toHaveLength(1);
  writeFileSync(orders, "order 2");
  // Mid-work: the second order's run is waiting on the slow tool (and, with the checkpoint, it was written).
  const slowRunId = (await first.waitFor("tool.call.start", 1, (e) => String(e.name).endsWith("slow")))[0]?.runId;
  expect(slowRunId).toBeString();
  // The write that records the second order's run in flight, named by its run id: a write built while the
  // first order's run was in flight can be acknowledged after that run's end, with the same counts.
  if (checkpoint)
    await first.waitFor("checkpoint.written", 1, (e) => e.subscriptions === 2 && e.runIds?.length === 1 && e.runIds[0] === slowRunId);
  first.descendants();
  await first.kill();

  const restarted = start();
  await restarted.waitFor("trigger.run-end", 1, (e) => e.trigger === SELF_TRIGGER && e.status === "ok");
  await restarted.waitFor("trigger.run-end", 1, (e) => e.trigger !== SELF_TRIGGER);
  const acks = calls().filter((c) => c.params.name === "ack");
  const orderRunIds = [
    ...first.named("trigger.run-end", (e) => e.trigger === SELF_TRIGGER && e.status === "ok"),
    ...restarted.named("trigger.run-end", (e) => e.trigger === SELF_TRIGGER && e.status === "ok"),
  ].map((e) => e.runId as string);
  return { ackRunIds: acks.map((c) => c.meta[RUN_ID] as string), orderRunIds, restarted, subscribeAnswers };
}

test("killed mid-run and restarted: with the checkpoint and without it, every order is acknowledged once, under the same run ids", async () => {
  const withCheckpoint = await scenario(true);
  await stopAll();
  const without = await scenario(false);

  for (const o of [withCheckpoint, without]) {
    // Two orders, each acknowledged exactly once, by the run of its own state.
    expect(o.orderRunIds).toHaveLength(2);
    expect(new Set(o.orderRunIds).size).toBe(2);
    expect([...o.ackRunIds].sort()).toEqual([...o.orderRunIds].sort());
  }
  // The same run ids both ways: they name resource states, not processes.
  expect([...withCheckpoint.ackRunIds].sort()).toEqual([...without.ackRunIds].sort());

  // With the checkpoint: restored before any trigger started, the interrupted run named; Dispatch then
  // found the subscription already there.
  const restored = withCheckpoint.restarted.named("checkpoint.restored")[0];
  expect(restored).toMatchObject({ found: true, subscriptions: 1, interrupted: [withCheckpoint.orderRunIds[1]] });
  expect(withCheckpoint.restarted.named("trigger.self-subscribed")[0]).toMatchObject({ trigger: SELF_TRIGGER, restored: true });
  expect(withCheckpoint.subscribeAnswers.at(-1)).toContain("already-subscribed");

  // Without: nothing restored; the re-triggered Dispatch arranged the subscription again.
  expect(without.restarted.named("checkpoint.restored")).toEqual([]);
  expect(without.restarted.named("trigger.self-subscribed")[0]).toMatchObject({ trigger: SELF_TRIGGER });
  expect(without.restarted.named("trigger.self-subscribed")[0]?.restored).toBeUndefined();
  expect(without.subscribeAnswers.at(-1)).toContain('"subscribed"');
}, 180_000);
