/**
 * Fleet simulation on one machine: three real `agentd run --mode reactive` processes (as replicas of a
 * Deployment) watch one resource, sharing one Redis-backed `agentd store` for run claims. Each change is
 * run exactly once across the three — the run ids the recording MCP tool saw prove it — and when the
 * replica holding a long run is killed (a pod rescheduled), another takes the claim over after the lease
 * and finishes the run.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand } from "@agentd/testkit";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll, type AgentdProcess } from "./__fixtures__/agentd-process.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let recorder: FakeServerCommand | undefined;
let redis: RunningRedis | undefined;
afterEach(async () => {
  await stopAll();
  await gateway?.close();
  recorder?.dispose();
  ws?.cleanup();
  await redis?.stop();
  gateway = recorder = ws = redis = undefined;
});

const RUN_ID = "agentd.dev/run-id";

/** Three `agentd run --mode <mode>` replicas with `triggers`, a recording tool server each (one shared record), claims in one Redis store. */
function startReplicas(
  triggers: Record<string, unknown>,
  state: string,
  capabilities: Record<string, unknown> = {},
  mode = "reactive",
): AgentdProcess[] {
  recorder = fakeServerCommand({
    tools: [
      { name: "ack", text: "acked" },
      { name: "slow", delayMs: 600_000, text: "late" },
    ],
  });
  // One record file for the three replicas' recorder children (appends of whole lines); no control socket.
  const recorderConfig = {
    command: recorder.command,
    args: recorder.args.filter((a, i, all) => a !== "--control" && all[i - 1] !== "--control"),
  };
  return [0, 1, 2].map((n) => {
    const config = join((ws as CliWorkspace).dir, `replica-${n}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { flat: { command: process.execPath, args: [FILE_SERVER, state] }, rec: recorderConfig },
        triggers,
        capabilities,
        durability: {
          claims: {
            store: { command: process.execPath, args: [CLI_MAIN, "store", "--redis", (redis as RunningRedis).url] },
            lease: "1s",
            holder: `replica-${n}`,
          },
        },
      }),
    );
    return startAgentd(["run", "--mode", mode, "--config", config, "--json"], {
      cwd: (ws as CliWorkspace).dir,
      env: modelEnv(gateway as FakeGateway),
    });
  });
}

const recordedCalls = () => (recorder as FakeServerCommand).recordedRequests().filter((r) => r.method === "tools/call");

test.skipIf(!redisServerPath)(
  "three replicas, one Redis store: each change runs once; the holder of a long run is killed and another finishes it",
  async () => {
    redis = await startRedis();
    ws = new CliWorkspace();
    const state = join(ws.dir, "state.txt");
    writeFileSync(state, "state 0");
    // The first run of "long" calls a tool that never answers in time; every other run calls `ack`.
    let longStarted = false;
    let slowHandedOut: () => void = () => {};
    const slowGiven = new Promise<void>((r) => (slowHandedOut = r));
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) => {
          if (req.lastToolResult !== undefined) return { text: `done: ${instructionOf(req)}` };
          const long = instructionOf(req).endsWith("long") && !longStarted;
          if (long) {
            longStarted = true;
            slowHandedOut();
          }
          return { toolCalls: [{ name: toolLike(req, long ? "slow" : "ack"), arguments: {} }] };
        },
      ],
    });
    const replicas = startReplicas(
      { subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Handle: {{resource.text}}", pollInterval: "150ms" }] },
      state,
    );

    // Three states, each seen by all three replicas before the next.
    for (let i = 0; i < 3; i++) {
      if (i > 0) writeFileSync(state, `state ${i}`);
      await Promise.all(replicas.map((r) => r.waitFor("trigger.run-end", i + 1)));
    }
    const ends = replicas.flatMap((r) => r.named("trigger.run-end"));
    const ranOnce = ends.filter((e) => e.status === "ok").map((e) => e.runId);
    expect(ranOnce).toHaveLength(3);
    expect(new Set(ranOnce).size).toBe(3);
    expect(ends.filter((e) => e.status === "already-done")).toHaveLength(6);
    const calls = recordedCalls;
    // The tool saw each run id exactly once, across the three replicas.
    expect(
      calls()
        .map((c) => c.meta[RUN_ID])
        .sort(),
    ).toEqual([...ranOnce].sort());

    // A long run: whoever starts it is killed mid-run (its whole process tree, as a pod reschedule).
    const started = replicas.map((r) => r.named("run.start").length);
    writeFileSync(state, "long");
    const holder = await Promise.race(replicas.map((r, i) => r.waitFor("run.start", (started[i] as number) + 1).then(() => r)));
    // Killed only once its run holds the slow tool: killed earlier, the run that takes over would be the
    // first to ask the model, and get the slow tool itself.
    await slowGiven;
    await holder.kill();
    const survivors = replicas.filter((r) => r !== holder);
    const longEnds = await Promise.all(survivors.map((r) => r.waitFor("trigger.run-end", 4).then((e) => e[3])));
    const longRunId = longEnds[0]?.runId;
    expect(longEnds.every((e) => e?.runId === longRunId)).toBe(true);
    expect(longEnds.map((e) => e?.status).sort()).toEqual(["already-done", "ok"]);
    // The finishing replica called `ack` under the long run's id, once; nobody else ran it to the end.
    expect(calls().filter((c) => c.meta[RUN_ID] === longRunId && c.params.name === "ack")).toHaveLength(1);
    expect(ranOnce).not.toContain(longRunId);
  },
  120_000,
);

test.skipIf(!redisServerPath)(
  "three replicas, one Redis store, a schedule ticking every 2 s: each tick runs once across the three",
  async () => {
    redis = await startRedis();
    ws = new CliWorkspace();
    const state = join(ws.dir, "state.txt");
    writeFileSync(state, "unused");
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) =>
          req.lastToolResult !== undefined
            ? { text: `done: ${instructionOf(req)}` }
            : { toolCalls: [{ name: toolLike(req, "ack"), arguments: {} }] },
      ],
    });
    const replicas = startReplicas(
      { schedules: [{ cron: "*/2 * * * * *", instruction: "Tick {{tick}}" }] },
      state,
      { cron: "timezones" },
      "cron",
    );
    // Four ticks seen by every replica (each replica may also have seen ticks before the others started).
    await Promise.all(replicas.map((r) => r.waitFor("trigger.run-end", 4)));
    // Judged before the shutdown (a tick in flight then may end aborted); a tick still settling has fewer ends.
    const ends = replicas.flatMap((r) => r.named("trigger.run-end"));
    const byRun = new Map<string, typeof ends>();
    for (const e of ends) byRun.set(e.runId as string, [...(byRun.get(e.runId as string) ?? []), e]);
    for (const [, seen] of byRun) {
      expect(seen.filter((e) => e.status === "ok").length).toBeLessThanOrEqual(1);
      expect(seen.filter((e) => e.status !== "ok" && e.status !== "already-done")).toEqual([]);
    }
    // Ticks every replica has finished with: exactly one ran each, the other two were told it was done.
    const shared = [...byRun.values()].filter((seen) => seen.length === 3);
    expect(shared.length).toBeGreaterThanOrEqual(3);
    for (const seen of shared) expect(seen.map((e) => e.status).sort()).toEqual(["already-done", "already-done", "ok"]);
    for (const r of replicas) r.signal("SIGTERM");
    await Promise.all(replicas.map((r) => r.exited));
    // The tool saw each tick's run id at most once, across the three and through the shutdown.
    const ids = recordedCalls().map((c) => c.meta[RUN_ID]);
    expect(new Set(ids).size).toBe(ids.length);
    const ran = ends.filter((e) => e.status === "ok").map((e) => e.runId);
    expect(ids).toEqual(expect.arrayContaining(ran));
  },
  120_000,
);
