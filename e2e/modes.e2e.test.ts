/**
 * Reactive mode end to end: the real `agentd run --mode reactive` process → a fake gateway over loopback
 * HTTP → MCP servers as real stdio children whose resources change while agentd watches (the testkit's
 * fake server with its control channel; the official server-everything; a server without subscribe).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand } from "@agentd/testkit";
import { CliWorkspace, REPO_ROOT } from "@agentd/test-support/cli-process";
import { startAgentd, stopAll } from "./__fixtures__/agentd-process.ts";
import { commandLine } from "./__fixtures__/proc-tree.ts";
import { callThenAnswer, instructionOf, modelEnv, rawInstructionOf, runRequests, toolLike } from "./__fixtures__/scripts.ts";

const URI = "file:///inbox.md";
const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FILE_SERVER = resolve(import.meta.dir, "__fixtures__/file-resource-server.ts");

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  await stopAll();
  await gateway?.close();
  fake?.dispose();
  ws?.cleanup();
  gateway = undefined;
  fake = undefined;
  ws = undefined;
});

/** A workspace, a gateway whose every run calls `inbox/ack` then answers, and a fake inbox server. */
async function inboxSetup(subscription: Record<string, unknown> = {}) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [callThenAnswer("ack")] });
  fake = fakeServerCommand({ resources: [{ uri: URI, mimeType: "text/plain", text: "state 0" }], tools: [{ name: "ack", text: "acked" }] });
  const config = ws.writeConfig({
    mcpServers: { inbox: fake.config },
    triggers: {
      subscriptions: [{ server: "inbox", uri: URI, instruction: "Triage: {{resource.text}}", concurrency: "queue", ...subscription }],
    },
  });
  const start = () =>
    startAgentd(["run", "--mode", "reactive", "--config", config, "--json"], {
      cwd: (ws as CliWorkspace).dir,
      env: modelEnv(gateway as FakeGateway),
    });
  return { config, start, fake, gateway, ws };
}

const ranIds = (f: FakeServerCommand) =>
  f
    .recordedRequests()
    .filter((r) => r.method === "tools/call")
    .map((r) => r.meta["agentd.dev/run-id"]);

describe("agentd run --mode reactive", () => {
  test("read after subscribe, then a run per change (3 changes → 3 more runs, distinct run ids in _meta); a notification without a change runs nothing", async () => {
    const { start, fake, gateway } = await inboxSetup();
    const agentd = start();
    const [first] = await agentd.waitFor("trigger.run-end");
    expect(first).toMatchObject({ trigger: `sub:inbox:${URI}`, status: "ok" });
    for (let i = 1; i <= 3; i++) {
      await fake.control.setResource(URI, `state ${i}`);
      await agentd.waitFor("trigger.run-end", i + 1);
    }
    // Re-delivery in process: the same content notified again is not a new state.
    await fake.control.setResource(URI, "state 3");
    await fake.control.setResource(URI, "state 4");
    const ends = await agentd.waitFor("trigger.run-end", 5);
    expect(ends).toHaveLength(5);
    const ids = ends.map((e) => e.runId);
    expect(new Set(ids).size).toBe(5);
    expect(ranIds(fake)).toEqual(ids);
    expect(runRequests(gateway).map(instructionOf)).toEqual([0, 1, 2, 3, 4].map((i) => `Triage: state ${i}`));
    // The resource's text reached the model as untrusted data, fenced.
    expect(runRequests(gateway).map(rawInstructionOf)[0]).toMatch(
      /^Triage: <resource-text-[a-z2-7]{20} uri="[^"]+" untrusted="true">\nstate 0\n<\/resource-text-[a-z2-7]{20}>$/,
    );
    // Telemetry: each run's start and end carry the trigger and the run id; the end has duration and usage.
    const runEnd = agentd.named("run.end", (e) => e.runId === ids[1])[0];
    expect(runEnd).toMatchObject({ trigger: `sub:inbox:${URI}` });
    expect(runEnd?.usage?.totalTokens).toBeGreaterThan(0);
    expect(typeof runEnd?.durationMs).toBe("number");
    expect(agentd.named("run.start", (e) => e.runId === ids[1])[0]?.trigger).toBe(`sub:inbox:${URI}`);
    expect(agentd.named("trigger.fire", (e) => e.runId === ids[1])[0]?.trigger).toBe(`sub:inbox:${URI}`);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    // stdout: one JSON line per run, naming trigger and run id.
    const lines = agentd.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.runId)).toEqual(ids);
    expect(lines[4]).toMatchObject({ trigger: `sub:inbox:${URI}`, status: "ok", text: "done: Triage: state 4" });
  }, 60_000);

  test("a burst of 10 changes within the coalescing window → one run, which sees the last state", async () => {
    const { start, fake, gateway } = await inboxSetup({ coalesce: "2s" });
    const agentd = start();
    await agentd.waitFor("trigger.run-end");
    for (let i = 1; i <= 10; i++) await fake.control.setResource(URI, `burst ${i}`);
    await agentd.waitFor("trigger.run-end", 2);
    // A change after the burst is the very next run: the burst made exactly one.
    await fake.control.setResource(URI, "after");
    await agentd.waitFor("trigger.run-end", 3);
    expect(runRequests(gateway).map(instructionOf)).toEqual(["Triage: state 0", "Triage: burst 10", "Triage: after"]);
    agentd.signal("SIGINT");
    expect(await agentd.exited).toBe(130);
  }, 60_000);

  test("a restart re-delivers the current state under the same run id (read after subscribe, level-triggered)", async () => {
    const { start, fake } = await inboxSetup();
    const before = start();
    await before.waitFor("trigger.run-end");
    await fake.control.setResource(URI, "kept while down");
    const [, kept] = await before.waitFor("trigger.run-end", 2);
    before.signal("SIGTERM");
    expect(await before.exited).toBe(143);
    // The state persists in the server (its spec file is what a new child serves).
    const spec = JSON.parse(readFileSync(fake.specPath, "utf8"));
    spec.resources[0].text = "kept while down";
    writeFileSync(fake.specPath, JSON.stringify(spec));
    const after = start();
    const [again] = await after.waitFor("trigger.run-end");
    expect(again?.runId).toBe(kept?.runId);
    const calls = fake.recordedRequests().filter((r) => r.method === "tools/call");
    expect(calls.map((c) => c.meta["agentd.dev/run-id"])).toEqual([expect.any(String), kept?.runId, kept?.runId]);
    expect(new Set(calls.map((c) => c.pid)).size).toBe(2);
    after.signal("SIGTERM");
    expect(await after.exited).toBe(143);
  }, 60_000);

  test("the server child dies; the resource changes while it is down; after the reconnect exactly one run sees the change", async () => {
    const { start, fake, gateway } = await inboxSetup();
    const agentd = start();
    await agentd.waitFor("trigger.run-end");
    const child = agentd.descendants().find((pid) => commandLine(pid).includes("fake-mcp-server"));
    expect(child).toBeDefined();
    const spec = JSON.parse(readFileSync(fake.specPath, "utf8"));
    spec.resources[0].text = "changed while down";
    writeFileSync(fake.specPath, JSON.stringify(spec));
    process.kill(child as number, "SIGKILL");
    await agentd.waitFor("mcp.reconnected");
    await agentd.waitFor("trigger.run-end", 2);
    await fake.control.setResource(URI, "later");
    await agentd.waitFor("trigger.run-end", 3);
    const seen = runRequests(gateway).map(instructionOf);
    expect(seen).toEqual(["Triage: state 0", "Triage: changed while down", "Triage: later"]);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
  }, 60_000);

  test("@modelcontextprotocol/server-everything: subscribe; the first run toggles its updates; runs follow them", async () => {
    ws = new CliWorkspace();
    let toggled = false;
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) => {
          if (toggled || req.lastToolResult !== undefined) return { text: "noted" };
          toggled = true;
          return { toolCalls: [{ name: toolLike(req, "toggle-subscriber-updates"), arguments: {} }] };
        },
      ],
    });
    const uri = "demo://resource/dynamic/text/1";
    const config = ws.writeConfig({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
      triggers: { subscriptions: [{ server: "everything", uri, instruction: "Changed: {{resource.text}}" }] },
    });
    const agentd = startAgentd(["run", "--mode", "reactive", "--config", config], { cwd: ws.dir, env: modelEnv(gateway) });
    const ends = await agentd.waitFor("trigger.run-end", 3);
    expect(ends.every((e) => e.trigger === `sub:everything:${uri}` && e.status === "ok")).toBe(true);
    expect(new Set(ends.map((e) => e.runId)).size).toBe(3);
    const texts = runRequests(gateway).map(instructionOf);
    expect(new Set(texts.slice(0, 3)).size).toBe(3);
    expect(texts[0]).toStartWith("Changed: Resource 1: This is a plaintext resource");
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
  }, 60_000);
});

describe("a server that cannot push updates", () => {
  async function flatSetup(subscription: Record<string, unknown>) {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [(req) => ({ text: `seen ${instructionOf(req)}` })],
    });
    const state = join(ws.dir, "state.txt");
    writeFileSync(state, "first");
    const config = ws.writeConfig({
      mcpServers: { flat: { command: process.execPath, args: [FILE_SERVER, state] } },
      triggers: { subscriptions: [{ server: "flat", uri: "file-watch://state", instruction: "Now: {{resource.text}}", ...subscription }] },
    });
    return { config, state, ws, gateway };
  }

  test("without pollInterval the trigger is reported (one line naming trigger and server) and the mode exits 2", async () => {
    const { config } = await flatSetup({});
    const run = await (ws as CliWorkspace).run(["run", "--mode", "reactive", "--config", config], {
      env: modelEnv(gateway as FakeGateway),
    });
    expect(run.code).toBe(2);
    const lines = run.stderr.split("\n").filter((l) => l.includes("trigger.unavailable"));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: "error", trigger: "sub:flat:file-watch://state", server: "flat" });
    expect(run.stderr).toContain(
      "agentd: --mode reactive: no trigger could start: trigger 'sub:flat:file-watch://state': server 'flat' does not support resource subscriptions; set pollInterval to poll instead",
    );
    expect((gateway as FakeGateway).requests).toHaveLength(0);
  }, 60_000);

  test("with pollInterval it falls back to polling: a change to the resource is run", async () => {
    const { config, state } = await flatSetup({ pollInterval: "150ms" });
    const agentd = startAgentd(["run", "--mode", "reactive", "--config", config], {
      cwd: (ws as CliWorkspace).dir,
      env: modelEnv(gateway as FakeGateway),
    });
    expect((await agentd.waitFor("trigger.polling"))[0]).toMatchObject({
      trigger: "sub:flat:file-watch://state",
      server: "flat",
      everyMs: 150,
    });
    await agentd.waitFor("trigger.run-end");
    writeFileSync(state, "second");
    await agentd.waitFor("trigger.run-end", 2);
    agentd.signal("SIGTERM");
    expect(await agentd.exited).toBe(143);
    expect(agentd.stdout).toBe("seen Now: first\nseen Now: second\n");
  }, 60_000);
});

describe("start-up failures", () => {
  test("a required server that cannot start: exit 4 naming it, before any run", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "unused" }] });
    const config = ws.writeConfig({
      mcpServers: { broken: { command: "/nonexistent/agentd-modes-server" } },
      triggers: { subscriptions: [{ server: "broken", uri: "x://y", instruction: "never" }] },
    });
    const run = await ws.run(["run", "--mode", "reactive", "--config", config], { env: modelEnv(gateway) });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("broken");
    expect(gateway.requests).toHaveLength(0);
  }, 60_000);
});
