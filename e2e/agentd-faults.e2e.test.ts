/**
 * Faults on agentd itself: real `agentd run --mode reactive` replicas write through one real `agentd store
 * --http` (directory and Redis, two campaigns at once) and are killed with SIGKILL at random points, 100 times a backend. The
 * store stays up; each kill's replica is replaced by a fresh process.
 *
 * The work: three replicas watch four job documents `jobs/<n>`; each change is a run, claimed in the store
 * (acquire, renewals every lease/3, mark done; lease 500 ms), whose model — the fake gateway in this
 * process — has it call the store's `put` tool four times with 1 KiB documents on keys of its own (replica,
 * job state). A `put` is acknowledged when its tool result reaches the model, i.e. this test, over HTTP; a
 * claim when agentd logs `claim.acquired` / `claim.ended` on its stderr pipe. When a job's run is done the
 * test writes the job's next state.
 *
 * Each iteration waits for progress since the last kill — a replica had a write acknowledged — waits a
 * random delay (0–150 ms) drawn from a seeded PRNG, SIGKILLs that replica (amid its next puts, a renewal,
 * its claim's end or its next claim) and starts a replacement. Then: every write agentd acknowledged (the
 * victim's keys) reads back at that seq or later, whole and valid; a claim the dead replica still held on a
 * job's current state is taken over by another replica — only once its lease has expired (checked as it
 * happens, all awaited at the end). At the end every document in the backend, read directly, parses and
 * validates. The seed is printed and named in every failure (AGENTD_FAULT_SEED=… replays the choices).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { DirectoryBackend, RedisBackend, type ClaimDocument, type StoreBackend, type StoreClient } from "@agentd/sdk/store";
import { contentHash, subscriptionRunId } from "@agentd/sdk/triggers";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { Fleet, seededRandom, type FleetEvent, type Replica } from "./__fixtures__/fault-fleet.ts";
import { connectHttpStore, startStoreProcess, type StoreProcess } from "./__fixtures__/store-process.ts";
import { instructionOf, modelEnv, toolLike } from "./__fixtures__/scripts.ts";

const ITERATIONS = Number(process.env.AGENTD_FAULT_ITERATIONS ?? 100);
const REPLICAS = 3;
/** Short, so a takeover costs little; safe with one store on one host (no clock skew). */
const LEASE_MS = 500;
/** Kill points: up to this long after the victim's last claim or acknowledged write (its run's next puts, renewals, end). */
const MAX_DELAY_MS = 150;
const PUTS_PER_RUN = 4;
/** Job documents worked on at once (one subscription each): while one claim waits out its lease, others go on. */
const JOBS = 4;
const PAD = 1024;
const SEED = Number(process.env.AGENTD_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface DataDoc {
  seq: number;
  pad: string;
}
const docFor = (seq: number): DataDoc => ({ seq, pad: String(seq % 10).repeat(PAD) });

let redis: RunningRedis | undefined;
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
  console.log(`agentd fault campaign seed: ${SEED} (replay with AGENTD_FAULT_SEED=${SEED})`);
});
afterAll(async () => {
  await redis?.stop();
});

/** What one campaign measured. */
interface CampaignResult {
  kills: number;
  acked: number;
  takeovers: number;
  /** Takeovers from a live holder that renewed too late (it then logged claim.lost and stopped). */
  lapses: number;
  seconds: number;
}

/** A campaign on a store started with `backendArgs`; `openDirect` reads its data without the store. */
async function campaign(label: string, backendArgs: string[], openDirect: () => StoreBackend): Promise<CampaignResult> {
  // Its own clean-up (the two campaigns run at once): everything it started is stopped, by PID, at the end.
  const cleanup: Array<() => Promise<void> | void> = [];
  try {
    return await hammer(label, backendArgs, openDirect, cleanup);
  } finally {
    for (const c of cleanup.reverse()) await c();
  }
}

async function hammer(
  label: string,
  backendArgs: string[],
  openDirect: () => StoreBackend,
  cleanup: Array<() => Promise<void> | void>,
): Promise<CampaignResult> {
  const started = performance.now();
  const rand = seededRandom(SEED ^ (label === "redis" ? 0x5bd1e995 : 0));
  const ws = new CliWorkspace();
  cleanup.push(() => ws.cleanup());
  const store: StoreProcess = await startStoreProcess(backendArgs);
  let storeStopped = false;
  cleanup.push(() => (storeStopped ? undefined : store.stop()));
  const admin = await connectHttpStore(store.url, store.token);
  cleanup.push(() => admin.close().catch(() => {}));
  // The run id every replica computes for a job document's current state (a subscription's run id names it).
  const runIdOf = async (j: number): Promise<string> => {
    const uri = `store://doc/jobs/${j}`;
    const { contents } = await admin.store.mcp.readResource(uri);
    const version = contentHash(
      JSON.stringify(
        contents.map((c) => [c.uri, c.mimeType ?? null, (c as { text?: string }).text ?? null, (c as { blob?: string }).blob ?? null]),
      ),
    );
    return subscriptionRunId(`sub:store:${uri}`, uri, version);
  };
  const currentRun: string[] = [];
  for (let j = 0; j < JOBS; j++) {
    await admin.store.put(`jobs/${j}`, { job: 0 });
    currentRun[j] = await runIdOf(j);
  }

  // The model: PUTS_PER_RUN puts per run on keys of the calling replica (its model name), then an answer.
  const acked = new Map<string, number>();
  let acks = 0;
  const pending = new Map<string, { key: string; seq: number }>();
  let seq = 0;
  const gateway: FakeGateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req: RecordedRequest) => {
        // A replica runs its jobs at once: a run is its replica (model name) and its job state (instruction).
        const job = /"key":"jobs\/(\d+)","version":\d+,"value":\{"job":(\d+)\}/.exec(instructionOf(req));
        const run = `${req.model}/j${job?.[1]}n${job?.[2]}`;
        const sent = pending.get(run);
        if (sent && req.lastToolResult !== undefined) {
          pending.delete(run);
          const m = /"key":"([^"]+)","version":(\d+)/.exec(req.lastToolResult);
          if (m?.[1] === sent.key) {
            acked.set(sent.key, Math.max(acked.get(sent.key) ?? 0, sent.seq));
            acks++;
          }
        }
        const done = req.messages.filter((m) => m.role === "tool").length;
        if (done >= PUTS_PER_RUN) return { text: `done ${instructionOf(req).length}` };
        const next = ++seq;
        const key = `data/${run}/k${done}`;
        pending.set(run, { key, seq: next });
        return { toolCalls: [{ name: toolLike(req, "put"), arguments: { key, value: docFor(next) } }] };
      },
    ],
  });
  cleanup.push(() => gateway.close());

  const storeEntry = { url: store.url, headers: { Authorization: "Bearer ${STORE_TOKEN}" } };
  const config = ws.writeConfig({
    mcpServers: { store: storeEntry },
    triggers: {
      subscriptions: Array.from({ length: JOBS }, (_, j) => ({
        server: "store",
        uri: `store://doc/jobs/${j}`,
        instruction: "Do: {{resource.text}}",
      })),
    },
    durability: { claims: { store: storeEntry, lease: `${LEASE_MS}ms`, holder: "${HOLDER}" } },
    capabilities: { httpReactivity: true },
  });
  const fleet = new Fleet(
    () => ["run", "--mode", "reactive", "--config", config, "--json"],
    (name) => ({ ...modelEnv(gateway), AGENT_MODEL: name, HOLDER: name, STORE_TOKEN: store.token as string }),
    ws.dir,
  );
  cleanup.push(() => fleet.stopAll());

  // Who holds which claim, from the replicas' acknowledged claim records.
  const holding = new Map<string, Map<string, FleetEvent>>();
  const jobs = Array.from({ length: JOBS }, () => 0);
  const driverErrors: unknown[] = [];
  fleet.on((e) => {
    const held = holding.get(e.replica) ?? new Map<string, FleetEvent>();
    holding.set(e.replica, held);
    if (e.event === "claim.acquired") held.set(e.runId, e);
    if (e.event === "claim.ended" || e.event === "claim.lost") held.delete(e.runId);
    // A job's current run is done — ended ok here, or found done (its holder died after marking it): the
    // job's next state, once per run id.
    const j = e.event === "trigger.run-end" && (e.status === "ok" || e.status === "already-done") ? currentRun.indexOf(e.runId) : -1;
    if (j >= 0) {
      currentRun[j] = ""; // known again once written
      admin.store
        .put(`jobs/${j}`, { job: ++(jobs[j] as number) })
        .then(() => runIdOf(j))
        .then((id) => (currentRun[j] = id))
        .catch((error) => driverErrors.push(error));
    }
  });

  let spawned = 0;
  const spawn = () => fleet.start(`${label}${spawned++}`);
  for (let i = 0; i < REPLICAS; i++) spawn();
  const live = (name: string) => fleet.replicas.some((r) => r.name === name && fleet.alive(r));

  const tails = () =>
    fleet.replicas
      .filter((r) => fleet.alive(r))
      .map((r) => `${r.name}: ${r.tail().slice(-1500)}`)
      .join("\n");
  let takeovers = 0;
  // Takeovers from a live holder that renewed too late (and then said it lost the claim).
  let lapses = 0;
  let lastKillHeard = 0;
  const killedAtOf = new Map<string, number>();
  const takeoverChecks: Promise<void>[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const where = () => `seed ${SEED}, ${label} iteration ${i}`;
    // Progress since the last kill: a replica had a write acknowledged by the store. That replica, busy
    // with its run, is the victim: the kill lands amid its next puts, a renewal, its claim's end or its next claim.
    const busy = await fleet.waitFor(
      (e) => e.seq > lastKillHeard && e.event === "tool.call.end" && e.isError === false && live(e.replica),
      60_000,
      () => `a replica at work (${where()})\n${tails()}`,
    );
    const victim = fleet.replicas.find((r) => r.name === busy.replica) as Replica;
    const delay = Math.floor(rand() * MAX_DELAY_MS);
    // The fault's random point (not a synchronisation: whatever the replica is doing then is killed).
    await new Promise((r) => setTimeout(r, delay));
    const context = `${where()}, victim ${victim.name}, ${delay} ms after its ${busy.event}`;
    await fleet.kill(victim);
    // Taken once it is gone: every lease it wrote ends before this + one lease.
    killedAtOf.set(victim.name, Date.now());
    const heardBefore = fleet.heard; // what follows the death
    lastKillHeard = heardBefore;
    spawn();
    if (driverErrors.length) throw new Error(`the test's own job write failed (${context}): ${String(driverErrors[0])}`);

    // Every acknowledged write of the dead replica is there, whole, at that version or later.
    for (const [key, ackedSeq] of acked) if (key.startsWith(`data/${victim.name}/`)) await checkData(admin.store, key, ackedSeq, context);

    // A claim it still held on a job's current state is taken over by another replica, once its lease expired.
    for (const [runId] of holding.get(victim.name) ?? []) {
      const doc = (await admin.store.get(`claims/${runId}`))?.value as ClaimDocument | undefined;
      if (!doc || doc.holder !== victim.name || doc.state !== "running" || !currentRun.includes(runId)) continue;
      const dead = victim.name;
      takeoverChecks.push(
        fleet
          .waitFor(
            // Taken over; or its last write, in flight at the kill, landed: a release (then claimed afresh) or
            // the mark done (then the others find it done).
            (e) =>
              e.seq > heardBefore &&
              e.runId === runId &&
              e.replica !== dead &&
              (e.event === "claim.acquired" || (e.event === "trigger.run-end" && e.status === "already-done")),
            60_000,
            () => `the takeover of ${runId} from ${dead} (${context})\n${tails()}`,
          )
          .then(async (e) => {
            if (e.event === "trigger.run-end") {
              const now = (await admin.store.get(`claims/${runId}`))?.value as ClaimDocument | undefined;
              if (now?.state !== "done")
                throw new Error(`${e.replica} found ${runId} done, but its claim reads ${JSON.stringify(now)} (${context})`);
              return;
            }
            if (e.takenOverFrom === undefined) return;
            // From the dead replica; or from one that took it over meanwhile and was killed before its log line left.
            const from = killedAtOf.get(e.takenOverFrom);
            if (from === undefined) {
              // A live holder whose renewal came too late on a loaded machine (the lease is short here): the lease
              // contract then is that it notices at its next renewal and stops the run, saying so.
              const holder = e.takenOverFrom;
              await fleet.waitFor(
                (l) => l.seq > heardBefore && l.event === "claim.lost" && l.runId === runId && l.replica === holder,
                60_000,
                () =>
                  `${e.replica} took ${runId} over from ${holder}, which was never killed and never said it lost the claim (${context})\n${tails()}`,
              );
              lapses++;
              return;
            }
            if (Date.parse(e.ts) < e.expiredAt)
              throw new Error(
                `${e.replica} took ${runId} over at ${e.ts}, before its lease expired at ${new Date(e.expiredAt).toISOString()} (${context})`,
              );
            if (e.expiredAt > from + LEASE_MS)
              throw new Error(`${e.takenOverFrom}'s lease ran to ${e.expiredAt}, past its death ${from} + lease (${context})`);
            takeovers++;
          }),
      );
    }
    holding.delete(victim.name);
  }

  // The end: every expected takeover happened; stop everything, then read every document straight from the backend.
  await Promise.all(takeoverChecks);
  await fleet.stopAll();
  for (const [key, ackedSeq] of acked) await checkData(admin.store, key, ackedSeq, `seed ${SEED}, ${label}, at the end`);
  await admin.close();
  await store.stop();
  storeStopped = true;
  const direct = openDirect();
  try {
    for (const { key } of await direct.list("")) {
      const doc = await direct.get(key); // a torn document throws here
      const value = doc?.value;
      if (key.startsWith("data/")) expect(value).toEqual(docFor((value as DataDoc).seq));
      else if (key.startsWith("claims/"))
        expect(value).toMatchObject({
          holder: expect.any(String),
          state: expect.stringMatching(/^(running|done)$/),
          expiresAt: expect.any(Number),
        });
      else expect(key).toMatch(/^jobs\/\d+$/);
    }
  } finally {
    await direct.close();
  }
  return { kills: ITERATIONS, acked: acks, takeovers, lapses, seconds: (performance.now() - started) / 1000 };
}

async function checkData(store: StoreClient, key: string, ackedSeq: number, context: string): Promise<void> {
  const doc = await store.get(key);
  const value = doc?.value as DataDoc | undefined;
  if (!value || typeof value.seq !== "number" || value.seq < ackedSeq)
    throw new Error(
      `acknowledged write lost: ${key} was acknowledged at seq ${ackedSeq}, reads ${JSON.stringify(value?.seq)} (${context})`,
    );
  if (value.pad !== docFor(value.seq).pad) throw new Error(`torn document ${key} at seq ${value.seq} (${context})`);
}

// The two campaigns run at once: each mostly waits (leases, a replacement starting), so they overlap.
describe("kill -9 of agentd while it writes through the store", () => {
  test.concurrent(`directory store over HTTP: ${ITERATIONS} kills, no acknowledged write lost, no torn document, dead claims taken over after their lease`, async () => {
    const ws = new CliWorkspace();
    const dir = join(ws.dir, "store");
    const r = await campaign("dir", ["--dir", dir], () => new DirectoryBackend(dir)).finally(() => ws.cleanup());
    console.log(
      `directory: ${r.kills} kills, ${r.acked} acknowledged writes checked, ${r.takeovers} takeovers, ${r.lapses} late renewals taken over, ${r.seconds.toFixed(1)} s`,
    );
    expect(r.takeovers).toBeGreaterThan(ITERATIONS / 4);
  }, 300_000);

  test.concurrent.skipIf(!redisServerPath)(
    `Redis store over HTTP: ${ITERATIONS} kills, no acknowledged write lost, no torn document, dead claims taken over after their lease`,
    async () => {
      const url = (redis as RunningRedis).url;
      const r = await campaign(
        "redis",
        ["--redis", url, "--redis-prefix", "agentd-faults:"],
        () => new RedisBackend({ url, prefix: "agentd-faults:" }),
      );
      console.log(
        `redis: ${r.kills} kills, ${r.acked} acknowledged writes checked, ${r.takeovers} takeovers, ${r.lapses} late renewals taken over, ${r.seconds.toFixed(1)} s`,
      );
      expect(r.takeovers).toBeGreaterThan(ITERATIONS / 4);
    },
    300_000,
  );
});
