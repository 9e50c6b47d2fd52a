/**
 * The checkpoint's format, writer and handle restore against real parts: the store MCP server on the
 * directory backend (and Redis when installed), and real subagent child processes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { memoryLogger } from "../../log.ts";
import { connectStore } from "@agentd/test-support/connect-store";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { RedisBackend } from "../../store/redis-backend.ts";
import type { StoreClient } from "../../store/store-client.ts";
import type { StoreBackend } from "../../store/types.ts";
import { Supervisor } from "../../supervisor/supervisor.ts";
import { CHECKPOINT_FORMAT, checkpointKey, parseCheckpoint, type CheckpointDocument } from "./checkpoint-format.ts";
import { CheckpointWriter } from "./checkpoint-writer.ts";
import { AgentCheckpoint } from "./agent-checkpoint.ts";
import { createAgent } from "../create-agent.ts";
import { AgentTriggers } from "../../triggers/runner/agent-triggers.ts";
import { SelfSubscriptions } from "../../triggers/runner/self-subscriptions.ts";
import { memoryToolSet } from "../../loop/__fixtures__/memory-tools.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { FakeResourceClient } from "../../triggers/__fixtures__/trigger-harness.ts";

const CHILD = resolve(import.meta.dir, "../../supervisor/__fixtures__/scripted-child.ts");

const doc = (over: Partial<CheckpointDocument> = {}): CheckpointDocument => ({
  format: CHECKPOINT_FORMAT,
  version: 1,
  identity: "pod-a",
  writtenAt: new Date().toISOString(),
  subscriptions: [
    { id: "self:s:file:///x", server: "s", uri: "file:///x", instruction: "Do {{resource.text}}", origin: "self", arrangedBy: "run-1" },
  ],
  routes: [{ triggerId: "self:s:file:///x", kind: "subscription", instruction: "Do {{resource.text}}" }],
  runs: [],
  handles: [],
  ...over,
});

test("a checkpoint document is read back only when it is ours: format, version and shape are checked", () => {
  expect(parseCheckpoint(JSON.parse(JSON.stringify(doc())))).toEqual({
    ok: true,
    document: doc({ writtenAt: expect.any(String) as unknown as string }),
  });
  expect(parseCheckpoint({ ...doc(), version: 2 })).toEqual({ ok: false, reason: "checkpoint version 2 is not one this agentd reads (1)" });
  expect(parseCheckpoint({ hello: "world" })).toEqual({
    ok: false,
    reason: "not an agentd checkpoint (format field missing or different)",
  });
  expect(parseCheckpoint("torn")).toMatchObject({ ok: false });
  const broken = parseCheckpoint({ ...doc(), subscriptions: [{ id: 1 }] });
  expect(broken.ok).toBe(false);
  expect((broken as { reason: string }).reason).toStartWith("invalid checkpoint at subscriptions.0");
});

let redis: RunningRedis | undefined;
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

const backends: Array<{ name: string; skip: boolean; open: () => StoreBackend }> = [
  { name: "directory", skip: false, open: () => new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-ckpt-"))) },
  {
    name: "redis",
    skip: !redisServerPath,
    open: () => new RedisBackend({ url: (redis as RunningRedis).url, prefix: `ckpt${crypto.randomUUID()}:` }),
  },
];

for (const b of backends) {
  describe.skipIf(b.skip)(`the checkpoint writer on the ${b.name} store`, () => {
    let store: StoreClient;
    const cleanup: Array<() => Promise<void> | void> = [];
    const open = async () => {
      const backend = b.open();
      if (backend instanceof DirectoryBackend) cleanup.push(() => rmSync(backend.dir, { recursive: true, force: true }));
      cleanup.push(() => backend.close());
      const c = await connectStore(backend);
      cleanup.push(c.close);
      store = c.store;
    };
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c();
    });

    test("a burst of changes is one write; an unchanged document is not written again", async () => {
      await open();
      const logger = memoryLogger();
      let body = doc();
      const writer = new CheckpointWriter({
        store: async () => store,
        key: checkpointKey("pod-a"),
        build: () => body,
        debounceMs: 20,
        logger,
      });
      for (let i = 0; i < 10; i++) writer.schedule();
      await writer.flush();
      expect(writer.version).toBe(1);
      writer.schedule();
      await writer.flush();
      expect(writer.version).toBe(1); // nothing changed
      body = doc({ runs: [{ runId: "run-2", triggerId: "t", startedAt: "now" }] });
      writer.schedule();
      await writer.flush();
      expect(writer.version).toBe(2);
      const stored = await store.get(checkpointKey("pod-a"));
      expect(parseCheckpoint(stored?.value)).toMatchObject({ ok: true, document: { runs: [{ runId: "run-2" }] } });
      const written = logger.records.filter((r) => r.event === "checkpoint.written");
      expect(written).toHaveLength(2);
      // Each write names the runs it recorded, not only their count.
      expect(written.map((r) => [r.runs, r.runIds])).toEqual([
        [0, []],
        [1, ["run-2"]],
      ]);
    });

    test("a write under our identity by someone else is noticed (compare-and-set), then ours lands", async () => {
      await open();
      const logger = memoryLogger();
      let n = 0;
      const writer = new CheckpointWriter({
        store: async () => store,
        key: checkpointKey("pod-b"),
        build: () => doc({ identity: "pod-b", runs: [{ runId: `r${n}`, triggerId: "t", startedAt: "x" }] }),
        debounceMs: 5,
        logger,
      });
      writer.schedule();
      await writer.flush();
      await store.put(checkpointKey("pod-b"), { stranger: true });
      n++;
      writer.schedule();
      await writer.flush();
      expect(logger.records.find((r) => r.event === "checkpoint.conflict")).toMatchObject({ expected: 1, found: 2 });
      const stored = await store.get(checkpointKey("pod-b"));
      expect(stored?.version).toBe(3);
      expect(parseCheckpoint(stored?.value)).toMatchObject({ ok: true, document: { runs: [{ runId: "r1" }] } });
    });
  });
}

describe("restore", () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  const setup = async () => {
    const backend = new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-ckpt-restore-")));
    cleanup.push(
      () => rmSync(backend.dir, { recursive: true, force: true }),
      () => backend.close(),
    );
    const c = await connectStore(backend);
    cleanup.push(c.close);
    const orders = new FakeResourceClient();
    orders.texts.set("file:///x", "x0");
    const logger = memoryLogger();
    const agent = createAgent({ model: scriptedModel(Array.from({ length: 10 }, () => reply("ok"))), tools: memoryToolSet([]), logger });
    const triggers: AgentTriggers = new AgentTriggers({
      agent: { connect: () => agent.connect(), run: (input, o) => agent.run(input, o), clients: new Map([["s", orders]]) },
      specs: [{ kind: "subscription", id: "sub:s:file:///x", server: "s", uri: "file:///x", instruction: "Declared {{resource.text}}" }],
      logger,
    });
    cleanup.push(() => triggers.stop({ graceMs: 0 }));
    const selfSubscriptions = new SelfSubscriptions({ triggers: () => triggers, servers: ["s"], logger });
    const checkpoint = new AgentCheckpoint({ identity: "pod-a", store: async () => c.store, debounceMs: 5, logger });
    const parts = { specs: [], triggers, selfSubscriptions };
    return { store: c.store, checkpoint, parts, logger, triggers };
  };

  test("a corrupt or unknown-version checkpoint is one warning line and is not used; the next write replaces it", async () => {
    for (const bad of [
      { ...doc(), version: 9 },
      { format: CHECKPOINT_FORMAT, version: 1, identity: "pod-a" },
    ]) {
      const { store, checkpoint, parts, logger } = await setup();
      await store.put(checkpointKey("pod-a"), bad);
      const report = await checkpoint.restore(parts);
      expect(report).toMatchObject({ found: true, subscriptions: 0, ignored: expect.any(String) });
      expect(logger.records.filter((r) => r.event === "checkpoint.ignored")).toHaveLength(1);
      expect(logger.records.find((r) => r.event === "checkpoint.ignored")?.level).toBe("warn");
      expect(parts.selfSubscriptions.list()).toEqual([]);
      await checkpoint.close();
      const now = await store.get(checkpointKey("pod-a"));
      expect(now?.version).toBe(2);
      expect(parseCheckpoint(now?.value).ok).toBe(true);
      for (const c of cleanup.splice(0).reverse()) await c();
    }
  });

  test("a usable checkpoint brings the self-arranged subscriptions back (read after subscribing)", async () => {
    const { store, checkpoint, parts, triggers } = await setup();
    await store.put(
      checkpointKey("pod-a"),
      doc({
        subscriptions: [
          {
            id: "self:s:file:///x",
            server: "s",
            uri: "file:///x",
            instruction: "Do {{resource.text}}",
            origin: "self",
            arrangedBy: "run-1",
          },
        ],
      }),
    );
    const ended = new Promise<string>((r) => triggers.on("run-end", (e) => r(e.runId)));
    const report = await checkpoint.restore(parts);
    expect(report).toMatchObject({ found: true, subscriptions: 1, handles: { respawned: 0, kept: 0 } });
    await triggers.start();
    expect(await ended).toStartWith("sub-");
    expect(triggers.status().find((t) => t.id === "self:s:file:///x")).toMatchObject({ state: "active", arrangedBy: "run-1" });
    await checkpoint.close();
    expect(parseCheckpoint((await store.get(checkpointKey("pod-a")))?.value)).toMatchObject({
      ok: true,
      document: { subscriptions: [{ id: "self:s:file:///x", origin: "self" }] },
    });
  });
});

describe("handles restored from a checkpoint", () => {
  const sups: Supervisor[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    await Promise.all(sups.splice(0).map((s) => s.shutdown()));
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const supervisor = () => {
    const s = new Supervisor({
      model: {},
      command: { command: process.execPath, args: [CHILD] },
      backoff: { initialDelayMs: 10, maxDelayMs: 50 },
      graceMs: 2_000,
    });
    sups.push(s);
    return s;
  };

  test("a working handle is started again from its payload (same id, same run id); a finished one keeps its result", async () => {
    dir = mkdtempSync(join(tmpdir(), "agentd-ckpt-sup-"));
    const gate = join(dir, "gate");
    const before = supervisor();
    const working = before.start({ instruction: `gate:${gate}` }, { owner: "run-7" });
    const finished = await before.run({ instruction: "echo:hi" }, { owner: "run-7" });
    const snapshot = JSON.parse(JSON.stringify(before.snapshot())) as ReturnType<Supervisor["snapshot"]>;
    expect(snapshot.handles.map((h) => h.status).sort()).toEqual(["completed", "working"]);
    await before.shutdown(); // the old process is gone

    const after = supervisor();
    const actions = after.restore(snapshot.handles);
    expect(actions.map((a) => a.action).sort()).toEqual(["kept", "respawned"]);
    expect(after.get(finished.id)?.result?.text).toBe(finished.result?.text as string);
    expect(after.restore(snapshot.handles).every((a) => a.action === "skipped")).toBe(true);
    writeFileSync(gate, "open");
    const done = await after.wait(working.id);
    expect(done).toMatchObject({ id: working.id, status: "completed", owner: "run-7", result: { text: "gate opened" } });
    expect(done?.payload.runId).toBe(working.payload.runId);
    expect(after.list({ owner: "run-7" })).toHaveLength(2);
  }, 30_000);
});
