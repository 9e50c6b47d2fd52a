/**
 * The subagent surface on the served agent: an MCP client spawns async, subscribes to the result resource,
 * gets `notifications/resources/updated` when the child finishes, and reads the result. Real child
 * processes (the scripted child), the MCP client over the in-memory transport pair.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { McpClient } from "../mcp/client/client.ts";
import { McpServer } from "../mcp/server/server.ts";
import { createServedMcp } from "../serve/served-mcp.ts";
import { MemoryTransport } from "../transport/memory.ts";
import { descendants, killAll } from "./__fixtures__/process-tree.ts";
import { registerSubagentSurface } from "./mcp-surface.ts";
import { Supervisor } from "./supervisor.ts";

const CHILD = resolve(import.meta.dir, "__fixtures__/scripted-child.ts");
let sup: Supervisor | undefined;
let client: McpClient | undefined;
let dir: string | undefined;

afterEach(async () => {
  const pids = sup ? sup.pids().flatMap((p) => [p, ...descendants(p)]) : [];
  await client?.close();
  await sup?.shutdown();
  killAll(pids);
  if (dir) rmSync(dir, { recursive: true, force: true });
  sup = client = dir = undefined;
});

async function connect(server: McpServer): Promise<McpClient> {
  const [a, b] = MemoryTransport.createPair();
  await server.connect(b);
  client = new McpClient({ name: "test", version: "1" }, { capabilities: { tasks: true } });
  await client.connect(a);
  return client;
}

const newSupervisor = () => (sup = new Supervisor({ model: {}, command: { command: process.execPath, args: [CHILD] }, graceMs: 2_000 }));
const json = (r: { contents: Array<Record<string, unknown>> }) => JSON.parse(r.contents[0]?.text as string);

describe("subagent surface on an MCP server", () => {
  test("spawn async → subscribe → resources/updated → read the result", async () => {
    const server = new McpServer({ name: "agentd", version: "0" });
    registerSubagentSurface(server, newSupervisor());
    const c = await connect(server);
    expect((await c.listTools()).map((t) => t.name)).toEqual([
      "subagent.spawn",
      "subagent.wait",
      "subagent.result",
      "subagent.list",
      "subagent.cancel",
    ]);

    dir = mkdtempSync(join(tmpdir(), "agentd-surface-"));
    const gate = join(dir, "open");
    const spawned = await c.callTool("subagent.spawn", { instruction: `gate:${gate}`, async: true });
    const { id, uri, status } = spawned.structuredContent as { id: string; uri: string; status: string };
    expect(status).toBe("working");
    expect(uri).toBe(`agent://subagent/${id}/result`);

    let updated!: (uri: string) => void;
    const update = new Promise<string>((r) => (updated = r));
    c.on("resourceUpdated", (e) => updated(e.uri));
    await c.subscribe(uri);
    expect(json(await c.readResource(uri))).toMatchObject({ id, status: "working", attempts: 1 });

    writeFileSync(gate, "");
    expect(await update).toBe(uri);
    const done = json(await c.readResource(uri));
    expect(done).toMatchObject({
      id,
      status: "completed",
      result: { text: "gate opened", stopReason: "final" },
      usage: { totalTokens: 15 },
    });
    // The internal wire never shows: no start params, payload, pid or pipe in what the outside reads.
    expect(JSON.stringify(done)).not.toMatch(/"scopes"|"mcpServers"|"pid"|"protocol"|"seed"/);

    const listed = await c.callTool("subagent.list", {});
    expect((listed.structuredContent as { subagents: Array<{ id: string }> }).subagents.map((s) => s.id)).toEqual([id]);
  });

  test("sync spawn answers with the child's text; refusals and unknown ids are tool errors", async () => {
    const server = new McpServer({ name: "agentd", version: "0" });
    const s = newSupervisor();
    registerSubagentSurface(server, s);
    const c = await connect(server);
    const r = await c.callTool("subagent.spawn", { instruction: "echo:sync" });
    expect(r.isError).toBeFalsy();
    expect((r.content[0] as { text: string }).text).toStartWith("echo sync (attempt 1");

    const bad = await c.callTool("subagent.result", { id: "sa-nope" });
    expect(bad.isError).toBe(true);
    expect((bad.content[0] as { text: string }).text).toContain('no subagent with id "sa-nope"');
    await expect(c.readResource("agent://subagent/sa-nope/result")).rejects.toThrow(/not found/i);

    const hang = await c.callTool("subagent.spawn", { instruction: "hang", async: true });
    const hid = (hang.structuredContent as { id: string }).id;
    const cancelled = await c.callTool("subagent.cancel", { id: hid, reason: "enough" });
    expect(cancelled.isError).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ status: "cancelled", error: { message: "enough" } });
  });

  test("wired into the served agent with createServedMcp({ extend })", async () => {
    const s = newSupervisor();
    const self = createServedMcp({
      runner: {
        run: async () => ({
          text: "",
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
          turns: 0,
          runId: "r",
          stopReason: "final",
          toolCalls: 0,
        }),
      },
      extend: (server) => registerSubagentSurface(server, s),
    });
    const c = await connect(self.server);
    const names = (await c.listTools()).map((t) => t.name);
    expect(names).toContain("agent.run");
    expect(names).toContain("subagent.spawn");
    const templates = await c.request("resources/templates/list", {});
    expect(JSON.stringify(templates)).toContain("agent://subagent/{id}/result");
    const started = await c.callTool("subagent.spawn", { instruction: "echo:x", async: true });
    const id = (started.structuredContent as { id: string }).id;
    const waited = await c.callTool("subagent.wait", { id });
    expect(waited.structuredContent).toMatchObject({ id, status: "completed" });
  });
});

describe("subagent.spawn as an MCP task (capabilities.tasks on)", () => {
  const selfWithSubagents = () =>
    createServedMcp({
      runner: { run: () => Promise.reject(new Error("no runs here")) },
      capabilities: { tasks: true },
      extend: (server) => void registerSubagentSurface(server, newSupervisor()),
    }).server;

  test("the task follows the supervised child: working until it answers, then its result", async () => {
    const c = await connect(selfWithSubagents());
    expect((await c.listTools()).find((t) => t.name === "subagent.spawn")?.execution?.taskSupport).toBe("optional");
    dir = mkdtempSync(join(tmpdir(), "agentd-surface-"));
    const gate = join(dir, "open");
    const created = await c.request<{ task: { taskId: string; status: string } }>("tools/call", {
      name: "subagent.spawn",
      arguments: { instruction: `gate:${gate}` },
      task: {},
    });
    expect(created.task.status).toBe("working");
    expect(sup!.list().map((r) => r.status)).toEqual(["working"]);
    const got = await c.request<{ status: string }>("tasks/get", { taskId: created.task.taskId });
    expect(got.status).toBe("working");
    writeFileSync(gate, "");
    const result = await c.request<{ content: Array<{ text: string }>; _meta: Record<string, unknown> }>("tasks/result", {
      taskId: created.task.taskId,
    });
    expect(result.content[0]?.text).toContain("gate opened");
    expect(result._meta["io.modelcontextprotocol/related-task"]).toEqual({ taskId: created.task.taskId });
  }, 30_000);

  test("tasks/cancel cancels the supervised child", async () => {
    const c = await connect(selfWithSubagents());
    const created = await c.request<{ task: { taskId: string } }>("tools/call", {
      name: "subagent.spawn",
      arguments: { instruction: "hang:" },
      task: {},
    });
    const cancelled = await c.request<{ status: string }>("tasks/cancel", { taskId: created.task.taskId });
    expect(cancelled.status).toBe("cancelled");
    const [handle] = sup!.list();
    await sup!.wait(handle!.id);
    expect(sup!.get(handle!.id)?.status).toBe("cancelled");
  }, 30_000);
});
