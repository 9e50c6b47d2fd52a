/**
 * `agent.run() → waiting → agent.resume()` in one process, against a real MCP server process (the testkit's
 * fake server over stdio, whose record file is the server's own account of what reached it): the default of
 * an agent with approval rules and nobody to ask is a saved waiting run; resuming it calls the approved tool
 * once with the saved arguments, a denied call never reaches the server, and the mistakes are one line each.
 * A run whose claimer died is taken over once the claim's lease lapses (not before): an approved call the
 * journal says was started without an outcome is not made again (the model reads why), one with its outcome
 * is not made again (the model reads that outcome), one not started is made once.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeServerCommand, type FakeServerCommand } from "@agentd/testkit";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { RunEvent } from "../../loop/events.ts";
import { LocalDocuments } from "../conversations/local-documents.ts";
import { WaitingRuns } from "./waiting-runs.ts";
import { createAgent } from "../create-agent.ts";

setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setUp(steps: Parameters<typeof scriptedModel>[0]) {
  const fake: FakeServerCommand = fakeServerCommand({
    tools: [
      { name: "delete_file", text: "deleted {{path}}", annotations: { destructiveHint: true } },
      { name: "read_file", text: "contents of {{path}}", annotations: { readOnlyHint: true } },
    ],
  });
  cleanups.push(() => fake.dispose());
  const dir = mkdtempSync(join(tmpdir(), "agentd-waiting-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const model = scriptedModel(steps);
  const events: RunEvent[] = [];
  const agent = createAgent({
    model,
    mcpServers: { fs: fake.config },
    approvals: { rules: [{ tool: "fs/delete_*", decision: "ask" }] },
    durability: { waitingRuns: new LocalDocuments(dir) },
    onEvent: (e) => events.push(e),
  });
  cleanups.push(() => agent.close());
  const calls = () =>
    fake
      .recordedRequests()
      .filter((r) => r.method === "tools/call")
      .map((r) => `${(r.params as { name: string }).name} ${JSON.stringify((r.params as { arguments?: unknown }).arguments)}`);
  return { agent, model, events, calls, dir };
}

describe("run → waiting → resume", () => {
  test("no onAsk: the run ends waiting (the read ran, the deletes wait); resumed, approved once, denied never", async () => {
    const { agent, model, events, calls } = setUp([
      callTools([
        ["fs__delete_file", { path: "/tmp/old" }],
        ["fs__read_file", { path: "/a" }],
        ["fs__delete_file", { path: "/etc" }],
      ]),
      reply("cleaned"),
    ]);
    const waiting = await agent.run("clean up", { runId: "run-wait-1" });
    expect(waiting).toMatchObject({ status: "waiting", stopReason: "waiting", runId: "run-wait-1", turns: 1 });
    expect(waiting.text).toBeUndefined();
    expect(waiting.pending?.map((p) => [p.name, p.arguments.path])).toEqual([
      ["fs/delete_file", "/tmp/old"],
      ["fs/delete_file", "/etc"],
    ]);
    expect(calls()).toEqual(['read_file {"path":"/a"}']);
    expect(agent.runIds()).toEqual([]);
    expect(events.find((e) => e.type === "run-end")).toMatchObject({ stopReason: "waiting" });
    const [keep, etc] = waiting.pending!;
    const states: string[] = [];
    const done = await agent.resume(
      "run-wait-1",
      {
        [keep!.id]: { decision: "approve", by: "ops", digest: keep!.digest },
        [etc!.id]: { decision: "deny", by: "ops", reason: "never /etc" },
      },
      { onStart: (run) => states.push(run.state) },
    );
    expect(states).toEqual(["starting"]);
    expect(done).toMatchObject({ status: "finished", text: "cleaned", runId: "run-wait-1", turns: 2, toolCalls: 3 });
    expect(calls()).toEqual(['read_file {"path":"/a"}', 'delete_file {"path":"/tmp/old"}']);
    const read = model.requests[1]!.messages.flatMap((m) => (m.role === "tool" ? m.content.map((c) => c.output) : []));
    expect(read).toHaveLength(3);
    expect(read[2]).toContain("never /etc");
  });

  test("resuming twice, an unknown run, a missing decision: one E_USAGE line each", async () => {
    const { agent } = setUp([callTools([["fs__delete_file", { path: "/x" }]]), reply("done")]);
    const waiting = await agent.run("delete", { runId: "run-wait-2" });
    const id = waiting.pending![0]!.id;
    await expect(agent.resume("run-nope", {})).rejects.toMatchObject({
      code: "E_USAGE",
      message: expect.stringContaining("no run run-nope waits"),
    });
    await expect(agent.resume("run-wait-2", {})).rejects.toMatchObject({
      code: "E_USAGE",
      message: expect.stringContaining(`missing: ${id}`),
    });
    await expect(agent.resume("run-wait-2", { "apr-other": { decision: "approve" } })).rejects.toMatchObject({ code: "E_USAGE" });
    await agent.resume("run-wait-2", { [id]: { decision: "approve" } });
    await expect(agent.resume("run-wait-2", { [id]: { decision: "approve" } })).rejects.toMatchObject({
      code: "E_USAGE",
      message: expect.stringContaining("already resumed"),
    });
  });
});

describe("a resume whose process died", () => {
  test("taken over once the lease lapsed: started-without-outcome not made again, recorded outcome reused, unstarted made once", async () => {
    const { agent, model, calls, dir } = setUp([
      callTools([
        ["fs__delete_file", { path: "/a" }],
        ["fs__delete_file", { path: "/b" }],
        ["fs__delete_file", { path: "/c" }],
      ]),
      reply("cleaned"),
    ]);
    const waiting = await agent.run("clean up", { runId: "run-dead-1" });
    const [a, b] = waiting.pending!;
    const decisions = Object.fromEntries(waiting.pending!.map((q) => [q.id, { decision: "approve" as const, by: "ops" }]));
    // A process claimed it, recorded /a as started and /b as made, and died (its lease: already lapsed).
    const runs = new WaitingRuns(async () => new LocalDocuments(dir));
    const live = await runs.claim("run-dead-1", "pid-dead", decisions, 60_000);
    if (!live.ok) throw new Error("the claim must win");
    await expect(agent.resume("run-dead-1", decisions)).rejects.toMatchObject({
      code: "E_USAGE",
      message: expect.stringContaining("is already being resumed (by pid-dead)"),
    });
    const at = new Date().toISOString();
    const died = {
      ...live.document,
      leaseUntil: Date.now() - 1,
      calls: {
        [a!.toolCallId]: { startedAt: at, by: "pid-dead" },
        [b!.toolCallId]: { startedAt: at, by: "pid-dead", outcome: { text: "deleted /b before", isError: false } },
      },
    };
    expect(await runs.replace("run-dead-1", live.version, died)).toBeNumber();
    const done = await agent.resume("run-dead-1", decisions);
    expect(done).toMatchObject({ status: "finished", text: "cleaned" });
    expect(calls()).toEqual(['delete_file {"path":"/c"}']);
    const read = model.requests[1]!.messages.flatMap((m) => (m.role === "tool" ? m.content.map((x) => String(x.output)) : []));
    expect(read[0]).toContain("died during the call");
    expect(read[0]).toContain("It was not made again");
    expect(read[1]).toContain("deleted /b before");
    expect(read[2]).toContain("deleted /c");
    expect((await runs.get("run-dead-1"))?.document.state).toBe("resumed");
  });
});
