/**
 * The console mount on a real HTTP listener (127.0.0.1, port 0) with two users' tokens and an operator's:
 * the page is public and carries the strict headers; the API needs a token and shows each principal its own
 * runs; actions are the operator channel's (a user gets 403, the operator's cancel and pause reach the
 * agent's controls); a cross-site Origin is refused; the event stream pushes a run as it starts.
 */
import { afterEach, expect, test } from "bun:test";
import { nullLogger } from "../../log.ts";
import { emptyUsage } from "../../model/language-model.ts";
import type { OperatorControl } from "../../a2a/server/operator.ts";
import { scopedRunId } from "../../serve/principal.ts";
import { RunRegistry } from "../../serve/run-registry.ts";
import { summaryOf } from "../../serve/run-list.ts";
import type { SharedRunHistory } from "../../serve/shared-run-history.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../../transport/http-server/index.ts";
import { CONSOLE_CSP, createConsoleMount, type ConsoleMount } from "./console-mount.ts";

const ALICE = "alice-console-unit-token";
const BOB = "bob-console-unit-token";
const OPS = "ops-console-unit-token";
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

let server: StreamableHttpServer | undefined;
let mount: ConsoleMount | undefined;
afterEach(async () => {
  mount?.close();
  await server?.close();
  server = mount = undefined;
});

async function start(
  allowedOrigins?: string[],
  options: { noAuth?: boolean; operators?: string[]; traceUrl?: string; registry?: RunRegistry } = {},
) {
  const registry = options.registry ?? new RunRegistry();
  const calls: string[] = [];
  const control: OperatorControl = {
    lifecycle: () => ({ state: "running", inFlight: registry.status().running.length }),
    drain: async () => void calls.push("drain"),
    cancelRun: (runId) => (calls.push(`cancel ${runId}`), true),
    runIds: () =>
      Object.entries(registry.principals()).flatMap(([owner, p]) => p.running.map((id) => scopedRunId({ id: owner, role: "user" }, id))),
    pauseTriggers: async (ids) => (calls.push(`pause ${ids ?? "all"}`), ["nightly"]),
    resumeTriggers: async () => ["nightly"],
    reload: async () => ({ changed: [], restartRequired: ["mcpServers"] }),
  };
  mount = createConsoleMount({
    registry,
    facts: {
      version: "9.9.9",
      lifecycle: () => ({ state: "running" }),
      ready: async () => ({ ok: true }),
      triggers: () => [{ id: "nightly", kind: "cron", state: "active" }],
    },
    operators: new Set(options.operators ?? []),
    authRequired: !options.noAuth,
    ...(options.traceUrl ? { traceUrl: options.traceUrl } : {}),
    mcpTasks: () => [
      { owner: "bearer:alice", view: { taskId: "t-alice", status: "working", createdAt: new Date().toISOString() } },
      { owner: "bearer:bob", view: { taskId: "t-bob", status: "completed", createdAt: new Date().toISOString() } },
    ],
    operator: {
      tasks: {
        unfinished: () => [],
        cancel: () => {
          throw new Error("no task");
        },
      },
      control,
    },
    logger: nullLogger,
  });
  server = await createStreamableHttpServer({
    hostname: "127.0.0.1",
    port: 0,
    ...(options.noAuth
      ? {}
      : {
          auth: {
            bearerTokens: [
              { token: ALICE, name: "alice" },
              { token: BOB, name: "bob" },
              { token: OPS, name: "ops", role: "operator" },
            ],
          },
        }),
    onsession: () => {},
    mounts: [mount],
    ...(allowedOrigins ? { allowedOrigins } : {}),
  });
  const at = (path: string) => new URL(path, server!.url).href;
  return { registry, calls, at };
}

test("the page and its assets are public and strict; the API needs a token", async () => {
  const { at } = await start();
  for (const path of ["/console", "/console/app.js", "/console/console.css"]) {
    const res = await fetch(at(path));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    await res.arrayBuffer();
  }
  expect(CONSOLE_CSP).toContain("default-src 'self'");
  expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
  expect(CONSOLE_CSP).not.toContain("unsafe");
  expect(await (await fetch(at("/console/api/auth"))).json()).toEqual({ required: true });
  expect((await fetch(at("/console/api/snapshot"))).status).toBe(401);
  expect((await fetch(at("/console/events"))).status).toBe(401);
  const snap = await fetch(at("/console/api/snapshot"), { headers: auth(OPS) });
  expect(snap.status).toBe(200);
  expect(snap.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
});

test("the listener's own refusals on console paths (401 without a token, 403 for a foreign Origin or a user's action) carry the strict headers", async () => {
  const { at } = await start();
  const refusals = [
    await fetch(at("/console/api/snapshot")),
    await fetch(at("/console/events")),
    await fetch(at("/console/api/snapshot"), { headers: { authorization: "Bearer not-a-token-of-ours-at-all" } }),
    await fetch(at("/console/api/snapshot"), { headers: { ...auth(OPS), origin: "https://evil.example" } }),
    await fetch(at("/console/api/drain"), { method: "POST", headers: { ...auth(ALICE), "content-type": "application/json" }, body: "{}" }),
  ];
  expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 403, 403]);
  for (const res of refusals) {
    expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    await res.arrayBuffer();
  }
  // Not on the MCP endpoint's answers: the headers are the console's.
  const mcp = await fetch(server!.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(mcp.status).toBe(401);
  expect(mcp.headers.get("content-security-policy")).toBeNull();
});

test("each user sees its own runs and MCP tasks; the operator sees all; a user's actions are refused and the operator's reach the agent", async () => {
  const { registry, calls, at } = await start();
  registry.start("a-1", "alice's work", "bearer:alice");
  registry.succeed("a-1", { text: "done", stopReason: "final", usage: emptyUsage(), turns: 1, toolCalls: 0 }, "bearer:alice");
  registry.start("b-1", "bob's work", "bearer:bob");
  registry.start("big", "a long answer", "bearer:bob");
  registry.succeed("big", { text: "x".repeat(100_000), stopReason: "final", usage: emptyUsage(), turns: 1, toolCalls: 0 }, "bearer:bob");
  const snapshot = async (t: string) =>
    (await (await fetch(at("/console/api/snapshot"), { headers: auth(t) })).json()) as {
      runs: { runId: string; principal: string }[];
      triggers?: unknown;
    };
  const bobs = (await snapshot(BOB)).runs as { runId: string; principal: string; answer?: string }[];
  expect(bobs.map((r) => `${r.principal} ${r.runId}`)).toEqual(["bearer:bob big", "bearer:bob b-1"]);
  // The list carries an excerpt of a long answer; the run's detail has all of it.
  expect(bobs[0]!.answer!.length).toBe(200);
  expect(
    ((await (await fetch(at("/console/api/run?id=big"), { headers: auth(BOB) })).json()) as { result: { text: string } }).result.text
      .length,
  ).toBe(100_000);
  expect((await snapshot(BOB)).triggers).toBeUndefined();
  const tasksOf = async (t: string) =>
    (
      (await (await fetch(at("/console/api/snapshot"), { headers: auth(t) })).json()) as { mcpTasks: { taskId: string; owner: string }[] }
    ).mcpTasks.map((x) => `${x.owner} ${x.taskId}`);
  expect(await tasksOf(BOB)).toEqual(["bearer:bob t-bob"]);
  expect(await tasksOf(OPS)).toEqual(["bearer:alice t-alice", "bearer:bob t-bob"]);
  expect((await snapshot(OPS)).runs.map((r) => `${r.principal} ${r.runId}`)).toEqual([
    "bearer:bob big",
    "bearer:bob b-1",
    "bearer:alice a-1",
  ]);
  expect((await snapshot(OPS)).triggers).toEqual([{ id: "nightly", kind: "cron", state: "active" }]);
  expect((await fetch(at("/console/api/run?id=a-1&principal=bearer:alice"), { headers: auth(BOB) })).status).toBe(404);
  expect(await (await fetch(at("/console/api/run?id=a-1&principal=bearer:alice"), { headers: auth(OPS) })).json()).toMatchObject({
    principal: "bearer:alice",
    runId: "a-1",
    result: { text: "done" },
  });

  const post = (t: string, action: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(at(`/console/api/${action}`), {
      method: "POST",
      headers: { ...auth(t), "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const refused = await post(BOB, "cancel", { id: "b-1" });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("PermissionDenied");
  expect((await post(ALICE, "pause", {})).status).toBe(403);
  expect(calls).toEqual([]);

  const canceled = await post(OPS, "cancel", { id: "b-1", principal: "bearer:bob" });
  expect(await canceled.json()).toEqual({ result: { canceled: [{ principal: "bearer:bob", id: "b-1" }] } });
  expect(await (await post(OPS, "pause", { triggers: ["nightly"] })).json()).toEqual({ result: { paused: ["nightly"] } });
  expect(await (await post(OPS, "reload", {})).json()).toEqual({ result: { changed: [], restartRequired: ["mcpServers"] } });
  expect(calls).toEqual([`cancel ${scopedRunId({ id: "bearer:bob", role: "user" }, "b-1")}`, "pause nightly"]);

  // A page on another site cannot drive the API (its Origin is refused); the console's own origin may.
  expect((await post(OPS, "pause", {}, { origin: "https://evil.example" })).status).toBe(403);
  expect((await post(OPS, "pause", {}, { origin: new URL(at("/")).origin })).status).toBe(200);
  expect((await post(OPS, "pause", {}, { "content-type": "text/plain" })).status).toBe(415);
});

test("the event stream sends a snapshot at once and another when a run starts", async () => {
  const { registry, at } = await start();
  const res = await fetch(at("/console/events"), { headers: auth(ALICE) });
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const snapshots: { runs: { runId: string }[] }[] = [];
  let buffer = "";
  const next = async () => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").find((l) => l.startsWith("data: "));
        if (data) return snapshots.push(JSON.parse(data.slice(6)));
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
    }
  };
  await next();
  expect(snapshots[0]!.runs).toEqual([]);
  registry.start("live-1", "watch me", "bearer:alice");
  registry.start("other", "not alice's", "bearer:bob");
  await next();
  expect(snapshots[1]!.runs.map((r) => r.runId)).toEqual(["live-1"]);

  // One principal's open streams are bounded (16 by default); another principal's are its own.
  const more = await Promise.all(Array.from({ length: 15 }, () => fetch(at("/console/events"), { headers: auth(ALICE) })));
  expect(more.map((r) => r.status)).toEqual(Array(15).fill(200));
  const refused = await fetch(at("/console/events"), { headers: auth(ALICE) });
  expect(refused.status).toBe(429);
  expect((await fetch(at("/console/events"), { headers: auth(BOB) })).status).toBe(200);
  await reader.cancel();
  for (const r of more) await r.body!.cancel();
});

test("with other origins configured, the console's own origin still reaches the console (and only the console)", async () => {
  const { at } = await start(["https://ops.example"]);
  const own = new URL(at("/")).origin;
  const pause = (origin: string) =>
    fetch(at("/console/api/pause"), { method: "POST", headers: { ...auth(OPS), "content-type": "application/json", origin }, body: "{}" });
  expect((await pause(own)).status).toBe(200);
  expect((await pause("http://localhost:1")).status).toBe(403);
  // The MCP endpoint keeps its own rule: the configured origins only.
  const mcp = await fetch(server!.url, {
    method: "POST",
    headers: { ...auth(OPS), "content-type": "application/json", accept: "application/json, text/event-stream", origin: own },
    body: "{}",
  });
  expect(mcp.status).toBe(403);
});

test("on loopback without auth the caller is the local principal: its own runs and the agent's triggers; acting needs --operators local", async () => {
  for (const operators of [[], ["local"]]) {
    const { registry, at } = await start(undefined, { noAuth: true, operators });
    registry.start("mine", "a local run");
    registry.start("theirs", "someone else's", "bearer:alice");
    expect(await (await fetch(at("/console/api/auth"))).json()).toEqual({ required: false });
    const snap = (await (await fetch(at("/console/api/snapshot"))).json()) as {
      principal: { id: string; role: string };
      runs: { runId: string }[];
      triggers: unknown[];
    };
    expect(snap.principal).toEqual({ id: "local", role: operators.length ? "operator" : "user" });
    expect(snap.runs.map((r) => r.runId)).toEqual(operators.length ? ["theirs", "mine"] : ["mine"]);
    expect(snap.triggers).toHaveLength(1);
    const pause = await fetch(at("/console/api/pause"), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(pause.status).toBe(operators.length ? 200 : 403);
    mount?.close();
    await server?.close();
    server = mount = undefined;
  }
});

test("older runs page past the snapshot's newest 200 with the cursor it gives, filters applied, each principal its own", async () => {
  const { registry, at } = await start();
  for (let i = 0; i < 230; i++) {
    const owner = i % 10 === 0 ? "bearer:bob" : "bearer:alice";
    registry.start(`r-${i}`, `work ${i}`, owner);
    if (i % 3 === 0) registry.fail(`r-${i}`, { code: "E_X", message: "failed" }, undefined, owner);
  }
  const snap = (await (await fetch(at("/console/api/snapshot"), { headers: auth(OPS) })).json()) as {
    runs: { runId: string }[];
    runsCursor?: string;
  };
  expect(snap.runs.length).toBe(200);
  expect(snap.runs[0]!.runId).toBe("r-229");
  expect(snap.runsCursor).toBeDefined();
  const page = async (t: string, query: string) =>
    (await (await fetch(at(`/console/api/runs?${query}`), { headers: auth(t) })).json()) as any;
  const older = await page(OPS, `cursor=${snap.runsCursor}&limit=100`);
  expect(older.runs.map((r: { runId: string }) => r.runId)).toEqual(Array.from({ length: 30 }, (_, i) => `r-${29 - i}`));
  expect(older.nextCursor).toBeUndefined();
  // Filters go with the cursor; a user pages through its own runs only.
  const failed = await page(OPS, `cursor=${snap.runsCursor}&status=failed`);
  expect(failed.runs.every((r: { status: string }) => r.status === "failed")).toBe(true);
  expect(failed.runs.length).toBe(10);
  const bobs = await page(BOB, "limit=10");
  expect(bobs.runs.map((r: { principal: string }) => r.principal)).toEqual(Array(10).fill("bearer:bob"));
  const bobsOlder = await page(BOB, `limit=10&cursor=${bobs.nextCursor}`);
  expect(bobsOlder.runs.map((r: { runId: string }) => r.runId)).toEqual(Array.from({ length: 10 }, (_, k) => `r-${120 - 10 * k}`));
  expect((await fetch(at("/console/api/runs?status=lost"), { headers: auth(OPS) })).status).toBe(400);
});

test("a run's trace id links to the configured trace page, the id encoded; a malformed id links nowhere", async () => {
  const { registry, at } = await start(undefined, { traceUrl: "https://jaeger.example.com/trace/{traceId}?ui=1" });
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  registry.start("traced", "traced work", "bearer:alice");
  registry.observe("traced", { type: "model-request", runId: "traced", turn: 1, messages: 1, traceId } as never, "bearer:alice");
  registry.start("odd", "odd work", "bearer:alice");
  registry.observe("odd", { type: "model-request", runId: "odd", turn: 1, messages: 1, traceId: "../../x?y=1" } as never, "bearer:alice");
  const run = async (id: string) => (await (await fetch(at(`/console/api/run?id=${id}`), { headers: auth(ALICE) })).json()) as any;
  expect((await run("traced")).traceLink).toBe(`https://jaeger.example.com/trace/${traceId}?ui=1`);
  expect((await run("odd")).traceLink).toBeUndefined();
});

test("spend in money where runs had a price: the status sums it, each run carries its own; none without prices", async () => {
  const { registry, at } = await start();
  const end = (id: string, costUsd?: number) => {
    registry.start(id, id, "bearer:alice");
    registry.observe(id, { type: "model-request", runId: id, turn: 1, messages: 1 } as never, "bearer:alice");
    registry.observe(
      id,
      { type: "run-end", runId: id, stopReason: "final", durationMs: 5, ...(costUsd !== undefined ? { costUsd } : {}) } as never,
      "bearer:alice",
    );
    registry.succeed(id, { text: "ok", stopReason: "final", usage: emptyUsage(), turns: 1, toolCalls: 0 }, "bearer:alice");
  };
  const snapshot = async () => (await (await fetch(at("/console/api/snapshot"), { headers: auth(ALICE) })).json()) as any;
  end("free");
  expect((await snapshot()).overview.status.costUsd).toBeUndefined();
  end("paid-1", 0.25);
  end("paid-2", 0.5);
  const snap = await snapshot();
  expect(snap.overview.status.costUsd).toBeCloseTo(0.75);
  expect(snap.runs.map((r: { runId: string; costUsd?: number }) => [r.runId, r.costUsd])).toEqual([
    ["paid-2", 0.5],
    ["paid-1", 0.25],
    ["free", undefined],
  ]);
});

test("with a shared history, the runs of other replicas are listed and read, each principal its own", async () => {
  // Another replica's finished runs, as the store side hands them over (agent/run-history-store.ts).
  const other = new RunRegistry();
  other.start("remote-1", "done elsewhere", "bearer:alice");
  other.succeed("remote-1", { text: "from B", stopReason: "final", usage: emptyUsage(), turns: 1, toolCalls: 0 }, "bearer:alice");
  const remote = { ...other.get("remote-1", "bearer:alice")!, replica: "replica-b" };
  const shared: SharedRunHistory = {
    replica: "replica-a",
    publish: () => {},
    list: async (viewer) =>
      viewer === undefined || viewer === "bearer:alice" ? [{ owner: "bearer:alice", summary: summaryOf(remote) }] : [],
    read: async (runId, owner) =>
      runId === "remote-1" && (owner === undefined || owner === "bearer:alice") ? { owner: "bearer:alice", record: remote } : undefined,
    close: async () => {},
  };
  const { at } = await start(undefined, { registry: new RunRegistry({ shared }) });
  const runsOf = async (t: string) =>
    ((await (await fetch(at("/console/api/snapshot"), { headers: auth(t) })).json()) as { runs: { runId: string; replica?: string }[] })
      .runs;
  expect((await runsOf(ALICE)).map((r) => [r.runId, r.replica])).toEqual([["remote-1", "replica-b"]]);
  expect(await runsOf(BOB)).toEqual([]);
  const read = (t: string) => fetch(at("/console/api/run?id=remote-1&principal=bearer%3Aalice"), { headers: auth(t) });
  expect(((await (await read(ALICE)).json()) as { result: { text: string }; replica: string }).replica).toBe("replica-b");
  expect((await read(BOB)).status).toBe(404);
  expect(((await (await read(OPS)).json()) as { principal: string }).principal).toBe("bearer:alice");
});
