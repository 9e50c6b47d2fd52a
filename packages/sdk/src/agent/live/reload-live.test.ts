/**
 * A reload replaces what can change at once: the served prompts (every MCP session of `agent.serve` gets
 * `notifications/prompts/list_changed`, seen here by the official SDK client over HTTP on 127.0.0.1, and
 * `agent.run` with `{prompt}` uses the new set) and the roots told to MCP servers (the real
 * server-everything over stdio gets `notifications/roots/list_changed` and asks `roots/list` again).
 */
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PromptListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { resolveConfig } from "../../config/load.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";
import type { Agent } from "../create-agent.ts";

const EVERYTHING = resolve(import.meta.dir, "../../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");

let dir: string | undefined;
let agent: Agent | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await agent?.close();
  agent = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A config file in a fresh directory, and a loader that reads it again. */
function configFile(initial: unknown) {
  dir = mkdtempSync(join(tmpdir(), "agentd-reload-live-"));
  const path = join(dir, "agentd.json");
  const write = (c: unknown) => writeFileSync(path, JSON.stringify(c));
  write(initial);
  const load = async () => (await resolveConfig({ configPath: path, env: { AGENT_CONFIG: undefined } })).config;
  return { dir, write, load };
}

test("a reload replaces the served prompts: every HTTP session is notified, prompts/list and agent.run follow", async () => {
  const before = {
    prompts: { greet: { description: "Greet someone", text: "Say hello to {{name}}", arguments: [{ name: "name", required: true }] } },
  };
  const { write, load } = configFile(before);
  const model = scriptedModel([reply("done")]);
  agent = createAgentFromConfig(await load(), { model, reloadConfig: load });
  const serving = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });

  const notified: Promise<void>[] = [];
  for (let i = 0; i < 2; i++) {
    const client = new Client({ name: `watcher-${i}`, version: "1.0.0" });
    notified.push(new Promise((res) => client.setNotificationHandler(PromptListChangedNotificationSchema, () => res())));
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url!)));
    clients.push(client);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["greet"]);
  }

  write({
    prompts: {
      triage: { description: "Triage an issue", text: "Triage issue {{id}} carefully", arguments: [{ name: "id", required: true }] },
    },
  });
  const report = await agent.reload();
  expect(report).toEqual({ changed: ["prompts"], restartRequired: [] });
  await Promise.all(notified);
  const [a] = clients as [Client];
  expect((await a.listPrompts()).prompts.map((p) => p.name)).toEqual(["triage"]);
  expect((await a.getPrompt({ name: "triage", arguments: { id: "42" } })).messages[0]?.content).toMatchObject({
    type: "text",
    text: "Triage issue 42 carefully",
  });

  const ran = await a.callTool({ name: "agent.run", arguments: { prompt: "triage", arguments: { id: "7" } } });
  expect(ran.isError).not.toBe(true);
  expect(JSON.stringify(model.requests[0]?.messages)).toContain("Triage issue 7 carefully");
  const old = await a.callTool({ name: "agent.run", arguments: { prompt: "greet", arguments: { name: "x" } } });
  expect(old.isError).toBe(true);
});

test("switching served prompts on by reload needs a restart (nothing was declared)", async () => {
  const { write, load } = configFile({ instructions: "x" });
  agent = createAgentFromConfig(await load(), { reloadConfig: load });
  write({ instructions: "x", prompts: { p: { description: "d", text: "t" } } });
  expect(await agent.reload()).toEqual({ changed: [], restartRequired: ["prompts"] });
});

test("a reload that changes roots notifies server-everything, which asks roots/list again and sees the new roots", async () => {
  const root = mkdtempSync(join(tmpdir(), "agentd-roots-"));
  try {
    const a = join(root, "alpha");
    const b = join(root, "beta");
    mkdirSync(a);
    mkdirSync(b);
    const config = (roots: string[]) => ({
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
      capabilities: { roots },
    });
    const { write, load } = configFile(config([a]));
    agent = createAgentFromConfig(await load(), { reloadConfig: load });
    await agent.connect();
    const everything = agent.clients.get("everything")!;
    const rootsText = async () => JSON.stringify((await everything.callTool("get-roots-list", {})).content);
    expect(await rootsText()).toContain(pathToFileURL(a).href);

    const asked = new Promise<void>((res) => everything.current!.on("rootsListed", () => res()));
    write(config([b]));
    expect(await agent.reload()).toEqual({ changed: ["roots"], restartRequired: [] });
    await asked;
    // server-everything stores the answer when it arrives; its tool reads what it stored.
    let text = await rootsText();
    for (let i = 0; i < 50 && !text.includes(pathToFileURL(b).href); i++) text = await rootsText();
    expect(text).toContain(pathToFileURL(b).href);
    expect(text).not.toContain(pathToFileURL(a).href);

    // Switching roots off changes what was declared: a restart does it; until then the server keeps the roots it has.
    write(config([]));
    expect(await agent.reload()).toEqual({ changed: [], restartRequired: ["capabilities"] });
    expect(await rootsText()).toContain(pathToFileURL(b).href);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 30_000);
