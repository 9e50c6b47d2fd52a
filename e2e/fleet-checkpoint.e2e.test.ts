/**
 * The fleet's "resume from the checkpoint" half: three real `agentd run --mode reactive` replicas share one
 * Redis-backed `agentd store` for run claims (and, switched on, checkpoints). A long run delegates its work
 * to a subagent (a real `agentd __subagent` child) and the replica holding it is killed with its whole tree
 * mid-work (a pod rescheduled). Another replica takes the claim over after the 1 s lease and:
 * - with the checkpoint, adopts the dead replica's handle from its checkpoint and starts the subagent again
 *   from its retained payload — the tool sees the subagent's run id from before the kill;
 * - without it, rebuilds: the run starts from scratch and spawns a new subagent (a new run id).
 * Both ways the outcome is the same: the long run ends `ok` once across the fleet and its work is
 * acknowledged exactly once. The run ids the recording tool saw prove which path was taken.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type RecordedRequest } from "@agentd/testkit";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll, type AgentdProcess } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");
const RUN_ID = "agentd.dev/run-id";

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
const handleId = (text: string): string => /sa-[0-9a-f]{12}/.exec(text)?.[0] ?? "sa-missing";

async function fleet(checkpoint: boolean) {
  const redis: RunningRedis = await startRedis();
  cleanups.push(() => redis.stop());
  const ws = new CliWorkspace();
  cleanups.push(() => ws.cleanup());
  const state = join(ws.dir, "state.txt");
  writeFileSync(state, "state 0");
  let childAskedSlow: () => void = () => {};
  const childSlow = new Promise<void>((r) => (childAskedSlow = r));
  let slowServed = false;
  const gateway: FakeGateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const instruction = instructionOf(req);
        const last = req.lastToolResult;
        if (instruction.startsWith("Sub-task")) {
          if (last !== undefined) return { text: "sub done" };
          // The subagent's first attempt hangs on the slow tool; its holder is killed meanwhile.
          const slow = !slowServed;
          slowServed = true;
          if (slow) childAskedSlow();
          return { toolCalls: [{ name: tool(req, slow ? /slow$/ : /ack$/), arguments: {} }] };
        }
        if (instruction !== "Handle: long")
          return last === undefined ? { toolCalls: [{ name: tool(req, /ack$/), arguments: {} }] } : { text: `done: ${instruction}` };
        // The long run: look for its subagent first (a resumed run finds the adopted one), else start one.
        if (last === undefined) return { toolCalls: [{ name: tool(req, /subagent.list$/), arguments: {} }] };
        if (last.includes("Started subagent") || last.includes('"id":"sa-'))
          return { toolCalls: [{ name: tool(req, /subagent.wait$/), arguments: { id: handleId(last) } }] };
        if (last.includes("no subagents"))
          return {
            toolCalls: [{ name: tool(req, /subagent.spawn$/), arguments: { instruction: "Sub-task for the long run", async: true } }],
          };
        return { text: "done: long" };
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
  const rec = { command: recorder.command, args: recorder.args.filter((a, i, all) => a !== "--control" && all[i - 1] !== "--control") };
  const store = { command: process.execPath, args: [CLI_MAIN, "store", "--redis", redis.url] };
  const replicas: AgentdProcess[] = [0, 1, 2].map((n) => {
    const config = join(ws.dir, `replica-${n}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { flat: { command: process.execPath, args: [FILE_SERVER, state] }, rec },
        triggers: {
          subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Handle: {{resource.text}}", pollInterval: "150ms" }],
        },
        subagents: { maxRestarts: 0 },
        ...(checkpoint ? { capabilities: { checkpoint: true } } : {}),
        durability: { claims: { store, lease: "1s", holder: `replica-${n}` }, ...(checkpoint ? { checkpoint: { debounce: "20ms" } } : {}) },
      }),
    );
    return startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], { cwd: ws.dir, env: modelEnv(gateway) });
  });
  const firstEnds = await Promise.all(replicas.map((r) => r.waitFor("trigger.run-end", 1).then((e) => e[0]?.status)));
  expect(firstEnds.sort()).toEqual(["already-done", "already-done", "ok"]);

  writeFileSync(state, "long");
  const holder = await Promise.race(replicas.map((r) => r.waitFor("subagent.spawn").then(() => r)));
  const spawned = holder.named("subagent.spawn")[0] as { id: string; runId: string };
  await childSlow;
  if (checkpoint) await holder.waitFor("checkpoint.written", 1, (e) => e.handles === 1 && e.runs === 1);
  await holder.kill();
  const holderName = `replica-${replicas.indexOf(holder)}`;

  const survivors = replicas.filter((r) => r !== holder);
  const longEnds = await Promise.all(survivors.map((r) => r.waitFor("trigger.run-end", 2).then((e) => e[1] as Record<string, unknown>)));
  const longRunId = longEnds[0]?.runId as string;
  const taker = survivors[longEnds.findIndex((e) => e.status === "ok")] as AgentdProcess;
  const acks = recorder
    .recordedRequests()
    .filter((r) => r.method === "tools/call" && r.params.name === "ack")
    .map((c) => c.meta[RUN_ID] as string);
  return { longEnds, longRunId, spawned, taker, holderName, acks };
}

for (const checkpoint of [true, false])
  test.skipIf(!redisServerPath)(
    `a killed replica's long run is taken over after the lease ${checkpoint ? "and resumed from its checkpoint" : "and rebuilt (checkpoint off)"}: its work is acknowledged once`,
    async () => {
      const { longEnds, longRunId, spawned, taker, holderName, acks } = await fleet(checkpoint);
      // The same outcome both ways: one replica ran the long run to the end, the other was told it was done.
      expect(longEnds.every((e) => e.runId === longRunId)).toBe(true);
      expect(longEnds.map((e) => e.status).sort()).toEqual(["already-done", "ok"]);
      expect(spawned.runId.startsWith(`${longRunId}.`)).toBe(true);
      // The long run's work (its subagent's) was acknowledged exactly once.
      const longAcks = acks.filter((id) => id.startsWith(`${longRunId}.`));
      expect(longAcks).toHaveLength(1);
      if (checkpoint) {
        // Resumed: the dead holder's subagent started again under its own id and run id; no new one spawned.
        expect(taker.named("checkpoint.adopted")[0]).toMatchObject({ runId: longRunId, from: holderName, handles: [spawned.id] });
        expect(taker.named("subagent.respawn")[0]).toMatchObject({ id: spawned.id, runId: spawned.runId });
        expect(taker.named("subagent.spawn")).toEqual([]);
        expect(longAcks).toEqual([spawned.runId]);
      } else {
        // Rebuilt: the run started over and spawned a new subagent.
        expect(taker.named("checkpoint.adopted")).toEqual([]);
        const again = taker.named("subagent.spawn")[0] as { runId: string };
        expect(again.runId).not.toBe(spawned.runId);
        expect(longAcks).toEqual([again.runId]);
      }
    },
    150_000,
  );
