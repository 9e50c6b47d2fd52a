/**
 * The fleet of deploy/overlays/served on one machine, built from the rendered manifests themselves
 * (`__fixtures__/manifest-fleet.ts` maps what a cluster provides to loopback): a real Redis (Debian's
 * redis-server) started with the redis StatefulSet's command and args, the store with the agentd-store
 * Deployment's args and environment, and three agentd replicas with the agentd Deployment's args and
 * environment, their configuration the ConfigMap's `agentd.json` in a ConfigMap-style directory (`..data`
 * symlink). Certificates are made at test time with openssl. Readiness is the manifests' own probes.
 *
 * Changed from the manifests, and why: the example hosts in the ConfigMap (the model gateway, the `tickets`
 * MCP server) point at a fake model gateway and at the store (a real MCP server over HTTPS); the claims'
 * lease is 2s instead of 30s and a schedule ticking every 2s is added (time compressed for a test; its
 * concurrency is "queue", so that every tick caught up after the downtime runs).
 *
 * Shown, in order: (c) the same served run id sent to two replicas runs once; (b) a replica killed with
 * SIGKILL mid-run has its run taken over and resumed from its saved conversation (the ConfigMap's
 * `durability.checkpoint.resumeConversations`): the tool call it had made is not made again; (d) a config change by symlink swap is applied by every replica;
 * (a) a tick missed while every replica was down is caught up once after they return; (e) a rolling restart
 * (SIGTERM one by one, readiness between) loses no request and no run. The figures (runs, takeovers,
 * duplicates) are printed for the record.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { redisServerPath } from "@agentd/test-support/redis-server";
import { toolLike } from "./__fixtures__/scripts.ts";
import { makeTestPki, type TestPki } from "./__fixtures__/serve/test-pki.ts";
import { gate } from "./__fixtures__/serve/serve-env.ts";
import { startAgentd, type AgentdProcess } from "./__fixtures__/agentd-process.ts";
import {
  configMapText,
  containerOf,
  envOf,
  expandArg,
  freePort,
  kubectlPath,
  podPath,
  probeOk,
  probePort,
  renderOverlay,
  type Container,
} from "./__fixtures__/manifest-fleet.ts";

const SKIP = !kubectlPath || !redisServerPath;
const LLM_KEY = "sk-fleet-manifests-7";
const rand = () => Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url");

let root = "";
let pki: TestPki | undefined;
let gateway: FakeGateway | undefined;
let redis: ReturnType<typeof Bun.spawn> | undefined;
let store: AgentdProcess | undefined;
const replicas = new Map<string, { proc: AgentdProcess; origin: string }>();
const clients: Client[] = [];
const ended: AgentdProcess[] = [];
const slow = gate();
const slowStarted = gate();
/** The first user text of each run's first turn (a request without earlier assistant turns). */
const asked: string[] = [];
/** Every request of the slow run (b), in arrival order. */
const slowRequests: RecordedRequest[] = [];
const askedWaiters = new Set<() => void>();
/** Resolves once the model was asked `text` in a run's first turn. */
const untilAsked = (text: string) =>
  new Promise<void>((resolve) => {
    const check = () => asked.includes(text) && (askedWaiters.delete(check), resolve());
    askedWaiters.add(check);
    check();
  });
let agentC: Container;
let replicaEnv: (name: string) => Record<string, string>;
let replicaArgs: string[] = [];
let agentToken = "";
let storeClient: Client | undefined;

/** Probes are polled as the kubelet does, on a period (compressed from the manifests' seconds). */
const probePeriod = () => Bun.sleep(200);
const userText = (req: RecordedRequest) => req.messages.find((m) => m.role === "user")?.text ?? "";
const mapPath = (v: string) => {
  if (v === "/data") {
    mkdirSync(join(root, "data"), { recursive: true }); // a directory the pod mounts
    return join(root, "data");
  }
  return v.startsWith("/etc/") || v.startsWith("/data/") ? podPath(root, v) : v;
};

/** Start replica `name` from the Deployment's container; resolves once its readiness probe passes. */
async function startReplica(name: string): Promise<void> {
  const proc = startAgentd(replicaArgs, { cwd: root, env: replicaEnv(name) });
  const [listening] = await proc.waitFor("serve.listening");
  const origin = new URL(String(listening!.url)).origin;
  // The readiness probe names the container port by name; here that port is the replica's loopback port.
  expect(probePort(agentC, agentC.readinessProbe!.httpGet!.port)).toBe(8443);
  while (!(await probeOk(agentC.readinessProbe!, origin, pki!.pem("ca.pem")))) await probePeriod();
  replicas.set(name, { proc, origin });
}

async function stopReplica(name: string, how: "SIGTERM" | "SIGKILL", preStop = false): Promise<void> {
  const r = replicas.get(name)!;
  // Out of the Service's endpoints first; as in the pod, the preStop hook's sleep (the manifest's) runs
  // before SIGTERM, so callers that picked this replica just before have their requests in.
  replicas.delete(name);
  ended.push(r.proc);
  if (preStop) await Bun.sleep((agentC as any).lifecycle.preStop.sleep.seconds * 1000);
  if (how === "SIGKILL") await r.proc.kill();
  else {
    r.proc.signal("SIGTERM");
    await r.proc.exited;
  }
}

async function mcpClient(name: string): Promise<Client> {
  const ca = pki!.pem("ca.pem");
  const c = new Client({ name: "fleet-manifests", version: "1.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", replicas.get(name)!.origin), {
      requestInit: { headers: { Authorization: `Bearer ${agentToken}` } },
      fetch: (url, init) => fetch(url, { ...init, tls: { ca } } as RequestInit),
    }),
  );
  clients.push(c);
  return c;
}

const run = (c: Client, runId: string, instruction: string) =>
  c.callTool({ name: "agent.run", arguments: { instruction, runId } }, undefined, { timeout: 90_000 }) as Promise<{
    content: Array<{ text?: string }>;
    isError?: boolean;
  }>;

/** Every telemetry event of every replica process (alive or ended). */
const allEvents = () => [...ended, ...[...replicas.values()].map((r) => r.proc)].flatMap((p) => p.events);

function writeConfigVersion(version: string, text: string): void {
  const dir = podPath(root, "/etc/agentd/config/x").slice(0, -2);
  mkdirSync(join(dir, version), { recursive: true });
  writeFileSync(join(dir, version, "agentd.json"), text);
  symlinkSync(version, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
}

let configText = "";

beforeAll(async () => {
  if (SKIP) return;
  root = mkdtempSync(join(tmpdir(), "agentd-fleet-manifests-"));
  const objs = renderOverlay("served");
  pki = makeTestPki();
  for (const [from, to] of [
    ["server.pem", "/etc/agentd/tls/tls.crt"],
    ["server.key", "/etc/agentd/tls/tls.key"],
    ["server.pem", "/etc/agentd-store/tls/tls.crt"],
    ["server.key", "/etc/agentd-store/tls/tls.key"],
    ["ca.pem", "/etc/agentd/store-ca/ca.crt"],
  ] as const)
    copyFileSync(pki.path(from), podPath(root, to));
  agentToken = rand();
  writeFileSync(podPath(root, "/etc/agentd/auth/tokens"), `${agentToken}\n`);
  const redisPassword = rand();
  const storeToken = rand();
  const redisPort = await freePort();
  const secrets: Record<string, string> = {
    "agentd-store/redis-password": redisPassword,
    "agentd-store/redis-url": `redis://:${redisPassword}@127.0.0.1:${redisPort}`,
    "agentd-store/token": storeToken,
    "agentd-secrets/oauth-store-key": Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
    "agentd-secrets/llm-api-key": LLM_KEY,
    "agentd-secrets/tickets-token": storeToken,
  };

  // Redis: the StatefulSet's command and args ($(REDIS_PASSWORD) expanded, /data mapped), on a loopback port.
  const redisC = containerOf(objs, "StatefulSet", "agentd-redis");
  const redisEnv = envOf(redisC, secrets, "agentd-redis-0", mapPath);
  const redisArgs = (redisC.args ?? []).map((a) => mapPath(expandArg(a, redisEnv)));
  expect(redisC.command).toEqual(["redis-server"]);
  redis = Bun.spawn([redisServerPath!, ...redisArgs, "--port", String(redisPort), "--bind", "127.0.0.1"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  // Its log is read to the end (a closed pipe would end it), and its "Ready" line awaited.
  const redisReady = gate();
  let redisFailed: string | undefined;
  void (async () => {
    const decoder = new TextDecoder();
    let seen = "";
    for await (const chunk of redis.stdout as ReadableStream<Uint8Array>)
      if ((seen += decoder.decode(chunk)).includes("Ready to accept connections")) redisReady.open();
    redisFailed = seen;
    redisReady.open();
  })();
  await redisReady.promise;
  if (redisFailed !== undefined) throw new Error(`redis-server ended: ${redisFailed.slice(-500)}`);

  // The store: the agentd-store Deployment's args and environment.
  const storeC = containerOf(objs, "Deployment", "agentd-store");
  const mapListen = (a: string) => a.replace(/^--http=0\.0\.0\.0:\d+$/, "--http=127.0.0.1:0");
  const storeArgs = (storeC.args ?? []).map((a) => mapListen(a.replace(/=(\/etc\/.*)$/, (_m, p: string) => `=${mapPath(p)}`)));
  store = startAgentd(storeArgs, { cwd: root, env: envOf(storeC, secrets, "agentd-store-0", mapPath) });
  const [listening] = await store.waitFor("store.listening");
  const storeUrl = new URL(String(listening!.url));
  while (!(await probeOk(storeC.readinessProbe!, storeUrl.origin, pki!.pem("ca.pem")))) await probePeriod();
  // The test reads the store directly (as an operator would) to check what a run wrote.
  storeClient = new Client({ name: "fleet-manifests-store", version: "1.0.0" });
  const storeCa = pki.pem("ca.pem");
  await storeClient.connect(
    new StreamableHTTPClientTransport(new URL(storeUrl.href), {
      requestInit: { headers: { Authorization: `Bearer ${storeToken}` } },
      fetch: (url, init) => fetch(url, { ...init, tls: { ca: storeCa } } as RequestInit),
    }),
  );
  clients.push(storeClient);

  gateway = await startFakeGateway({
    dialect: "openai",
    requireApiKey: LLM_KEY,
    onExhausted: "repeat-last",
    script: [
      async (req) => {
        const text = userText(req);
        const firstTurn = !req.messages.some((m) => m.role === "assistant");
        if (firstTurn) asked.push(text);
        for (const w of [...askedWaiters]) w();
        if (text.includes("slow")) {
          slowRequests.push(req);
          // The slow run: its first turn writes a document through the tickets server's `put`; its second
          // is held until the test lets it go (the replica running it is killed meanwhile).
          if (firstTurn) return { toolCalls: [{ name: toolLike(req, "put"), arguments: { key: "fleet/job-9", value: { step: 1 } } }] };
          slowStarted.open();
          await slow.promise;
        }
        return { text: `done: ${text}` };
      },
    ],
  });

  // The ConfigMap's configuration, in-cluster names mapped to loopback, time compressed, a schedule added.
  const config = JSON.parse(
    configMapText(objs)
      .replaceAll("https://agentd-store:7700/mcp", storeUrl.href)
      .replaceAll("https://tickets-mcp.example.internal/mcp", storeUrl.href)
      .replaceAll("https://llm-gateway.example.internal/v1", `${gateway.url}`),
  );
  config.durability.claims.lease = "2s";
  config.capabilities = { ...config.capabilities, cron: "timezones" };
  // "queue": every caught-up tick runs. Under the default "skip", ticks waiting behind a running one are
  // superseded by the newest (a slow start catching up three ticks ran the first and the last only).
  config.triggers = { schedules: [{ cron: "*/2 * * * * *", instruction: "Tick {{tick}}", catchUp: "all", concurrency: "queue" }] };
  configText = JSON.stringify(config, null, 2);
  writeConfigVersion("..2026_12_06_01_00_00.1", configText);
  symlinkSync("..data/agentd.json", podPath(root, "/etc/agentd/config/agentd.json"));

  // The replicas: the agentd Deployment's args and environment.
  agentC = containerOf(objs, "Deployment", "agentd");
  replicaArgs = (agentC.args ?? []).map((a) => mapListen(a.replace(/=(\/etc\/.*)$/, (_m, p: string) => `=${mapPath(p)}`)));
  replicaEnv = (name) => envOf(agentC, secrets, name, mapPath);
  await Promise.all(["agentd-a", "agentd-b", "agentd-c"].map(startReplica));
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const r of replicas.values()) await r.proc.kill();
  if (store) await store.kill();
  redis?.kill("SIGKILL");
  await redis?.exited;
  await gateway?.close();
  pki?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
}, 30_000);

const figures = { servedRuns: 0, takeovers: 0, duplicates: 0 };

describe.skipIf(SKIP)("the served overlay as a fleet on one machine", () => {
  test("(c) the same served run id sent to two replicas runs once", async () => {
    const [ca, cb] = [await mcpClient("agentd-a"), await mcpClient("agentd-b")];
    const [ra, rb] = await Promise.all([run(ca, "order-17", "Served order 17"), run(cb, "order-17", "Served order 17")]);
    expect(ra.content[0]?.text).toContain("done: Served order 17");
    expect(rb.content[0]?.text).toContain("done: Served order 17");
    expect(asked.filter((t) => t === "Served order 17")).toHaveLength(1);
  }, 60_000);

  test("(b) a replica killed with SIGKILL mid-run has its run taken over and resumed from its saved conversation", async () => {
    const ca = await mcpClient("agentd-a");
    const cc = await mcpClient("agentd-c");
    void run(ca, "job-9", "Served slow job 9").catch(() => {});
    // Killed once its first turn's tool result is saved and its second turn is with the model.
    await slowStarted.promise;
    const a = replicas.get("agentd-a")!.proc;
    await a.waitFor("conversation.saved", 1, (e) => String(e.runId).startsWith("job-9@"));
    const waiting = run(cc, "job-9", "Served slow job 9");
    await stopReplica("agentd-a", "SIGKILL");
    const beforeTakeover = slowRequests.length;
    const c = replicas.get("agentd-c")!.proc;
    const taken = await c.waitFor("claim.acquired", 1, (e) => e.takenOverFrom === "agentd-a");
    expect(taken.length).toBe(1);
    slow.open();
    const r = await waiting;
    expect(r.isError).toBeFalsy();
    expect(r.content[0]?.text).toContain("done: Served slow job 9");
    // Resumed, not re-run: replica c's run read the saved conversation, and every request it made carried
    // the turn already done — the put call and its result — so the model was asked the first turn once.
    const [resumed] = await c.waitFor("conversation.resumed", 1, (e) => String(e.runId).startsWith("job-9@"));
    expect(resumed!.messages).toBeGreaterThanOrEqual(3);
    const after = slowRequests.slice(beforeTakeover);
    expect(after.length).toBeGreaterThanOrEqual(1);
    for (const req of after) {
      expect(req.messages.some((m) => m.toolCalls.some((t) => t.name.endsWith("put")))).toBe(true);
      expect(req.messages.some((m) => m.toolResults.some((t) => t.content.includes("fleet/job-9")))).toBe(true);
    }
    expect(asked.filter((t) => t === "Served slow job 9")).toHaveLength(1);
    // The put ran once: the document is at its first version.
    const doc = (await storeClient!.callTool({ name: "get", arguments: { key: "fleet/job-9" } })) as {
      structuredContent?: { version?: number };
    };
    expect(doc.structuredContent?.version).toBe(1);
    await startReplica("agentd-a");
  }, 90_000);

  test("(d) a config change by ConfigMap-style symlink swap is applied by every replica", async () => {
    const marks = new Map([...replicas].map(([n, r]) => [n, r.proc.events.length]));
    const next = JSON.parse(configText);
    next.instructions = "Answer briefly.";
    writeConfigVersion("..2026_12_06_01_05_00.2", JSON.stringify(next, null, 2));
    for (const [n, r] of replicas) {
      const [line] = await r.proc.waitFor("agent.reloaded", 1, (e) => r.proc.events.indexOf(e) >= marks.get(n)!);
      expect(line).toMatchObject({ changed: ["instructions"], restartRequired: [] });
    }
  }, 60_000);

  test("(a) a tick missed while every replica was down is caught up once after they return", async () => {
    const names = [...replicas.keys()];
    await Promise.all(names.map((n) => stopReplica(n, "SIGTERM")));
    const downAt = Date.now();
    // Down across at least one tick of the 2 s schedule: wait for the clock to pass it (no replica runs).
    await Bun.sleep(Math.max(0, 2000 - (downAt % 2000)) + 2100);
    const upFrom = Date.now();
    await Promise.all(names.map(startReplica));
    const missed = Array.from({ length: 10 }, (_, i) => Math.ceil(downAt / 2000) * 2000 + i * 2000)
      .filter((t) => t < upFrom)
      .map((t) => new Date(t).toISOString());
    expect(missed.length).toBeGreaterThanOrEqual(1);
    // Whichever replica read the schedule's last fire first caught the missed ticks up (the others may find
    // them recorded already, or claimed): one catch-up at least, and each missed tick run once.
    // On a failure, what every replica process did about the missed ticks says why (in process order).
    const story = () => {
      const procs = [...ended, ...[...replicas.values()].map((r) => r.proc)];
      const byProc = procs.map((p, i) => p.events.map((e): Record<string, unknown> => ({ proc: i, ...e })));
      const runIds = new Set(
        byProc
          .flat()
          .flatMap((e) => (e.event === "trigger.fire" && missed.some((t) => String(e.key).endsWith(`@${t}`)) ? [String(e.runId)] : [])),
      );
      return JSON.stringify({
        downAt: new Date(downAt).toISOString(),
        upFrom: new Date(upFrom).toISOString(),
        missed,
        ticksAsked: asked.filter((t) => t.startsWith("Tick ")),
        events: byProc.flat().filter((e) => e.event === "trigger.catch-up" || runIds.has(String(e.runId))),
      });
    };
    await Promise.any([...replicas.values()].map((r) => r.proc.waitFor("trigger.catch-up", 1, (e) => e.firing > 0))).catch(() => {
      throw new Error(`no replica caught a tick up: ${story()}`);
    });
    // The missed tick's run: once, on one replica, whichever caught it up first.
    const bounded = AbortSignal.timeout(30_000);
    for (const tick of missed)
      await Promise.race([
        untilAsked(`Tick ${tick}`),
        new Promise((_, reject) =>
          bounded.addEventListener("abort", () => reject(new Error(`missed tick ${tick} never ran: ${story()}`)), { once: true }),
        ),
      ]);
    for (const tick of missed) expect(asked.filter((t) => t === `Tick ${tick}`)).toHaveLength(1);
  }, 90_000);

  test("(e) a rolling restart (SIGTERM one by one, readiness between) loses no request and no run", async () => {
    const results: Array<Promise<{ isError?: boolean; content: Array<{ text?: string }> }>> = [];
    let n = 0;
    let rolling = true;
    // Callers keep sending through "the Service": any replica whose readiness passed and is not terminating.
    const byOrigin = new Map<string, Promise<Client>>();
    const caller = (async () => {
      while (rolling) {
        const names = [...replicas.keys()];
        const name = names[n % names.length]!;
        const origin = replicas.get(name)!.origin;
        if (!byOrigin.has(origin)) byOrigin.set(origin, mcpClient(name));
        const c = await byOrigin.get(origin)!;
        const id = `rolling-${++n}`;
        const p = run(c, id, `Served ${id}`);
        results.push(p);
        await p.catch(() => {});
      }
    })();
    const startTicks = new Set(asked.filter((t) => t.startsWith("Tick ")));
    for (const name of [...replicas.keys()]) {
      await stopReplica(name, "SIGTERM", true);
      await startReplica(name);
    }
    rolling = false;
    await caller;
    const settled = await Promise.all(results.map((p) => p.catch((e: unknown) => ({ isError: true, content: [{ text: String(e) }] }))));
    expect(settled.filter((r) => r.isError)).toEqual([]);
    expect(settled.length).toBeGreaterThanOrEqual(3);
    // No tick lost: from the first to the last tick seen during the restart, every 2 s tick ran.
    const ticks = asked
      .filter((t) => t.startsWith("Tick ") && !startTicks.has(t))
      .map((t) => Date.parse(t.slice(5)))
      .sort((a, b) => a - b);
    for (let t = ticks[0]!; t <= ticks.at(-1)!; t += 2000) expect(ticks).toContain(t);
  }, 120_000);

  test("figures: runs, takeovers, duplicates (zero)", () => {
    const ends = allEvents().filter((e) => e.event === "trigger.run-end" && e.status === "ok");
    const byRun = new Map<string, number>();
    for (const e of ends) byRun.set(String(e.runId), (byRun.get(String(e.runId)) ?? 0) + 1);
    const served = asked.filter((t) => t.startsWith("Served "));
    const servedTwice = [...new Set(served)].filter((t) => served.filter((s) => s === t).length > 1);
    figures.servedRuns = new Set(served).size;
    figures.takeovers = allEvents().filter((e) => e.event === "claim.acquired" && e.takenOverFrom).length;
    // `asked` holds first turns only: a run taken over and resumed is not asked its first turn again.
    figures.duplicates = [...byRun.values()].filter((c) => c > 1).length + servedTwice.length;
    console.log(
      `fleet figures: ${byRun.size} triggered runs, ${figures.servedRuns} served runs, ${figures.takeovers} takeovers, ${figures.duplicates} duplicates`,
    );
    expect(figures.takeovers).toBeGreaterThanOrEqual(1);
    expect(figures.duplicates).toBe(0);
  });
});
