/**
 * Reloading the configuration of a running agent (`agent.reload()` and the operator's `agentd/reload` over
 * A2A on 127.0.0.1): live settings apply to the next run, triggers are swapped, keys that need a restart
 * are named; an invalid file is refused with its one line and the running settings are kept.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveConfig } from "../../config/load.ts";
import { memoryLogger } from "../../log.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { ModelRequest } from "../../model/language-model.ts";
import { createAgentFromConfig } from "../from-config/from-config.ts";
import type { Agent } from "../create-agent.ts";
import { configReloadSource } from "./reload.ts";

let dir: string | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const systemOf = (r: ModelRequest | undefined) => r?.messages.find((m) => m.role === "system")?.content ?? "";

test("a reload applies instructions, limits and triggers live, names what needs a restart, and refuses a bad file keeping the old settings", async () => {
  dir = mkdtempSync(join(tmpdir(), "agentd-reload-"));
  const path = join(dir, "agentd.json");
  const write = (c: unknown) => writeFileSync(path, typeof c === "string" ? c : JSON.stringify(c));
  const env = { AGENT_CONFIG: undefined };
  write({ instructions: "Be brief.", limits: { maxTurns: 5 }, serve: { operators: ["local"] } });
  const model = scriptedModel(Array.from({ length: 10 }, () => reply("ok")));
  const logger = memoryLogger();
  const load = async () => (await resolveConfig({ configPath: path, env })).config;
  agent = createAgentFromConfig(await load(), { model, logger, reloadConfig: load });
  const serving = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 }, a2a: true });
  const rpc = async (method: string) =>
    (
      await fetch(new URL("/a2a", serving.url), {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
      })
    ).json() as Promise<any>;

  await agent.run("first");
  expect(systemOf(model.requests[0])).toContain("Be brief.");

  write({
    instructions: "Be thorough.",
    limits: { maxTurns: 7 },
    serve: { operators: ["local"] },
    mcpServers: { x: { command: "true" } },
    triggers: { interval: { every: "1h", instruction: "tick" } },
  });
  const report = await rpc("agentd/reload");
  expect(report.result).toEqual({
    changed: ["instructions", "limits", "triggers"],
    triggers: { added: ["interval"], removed: [], changed: [] },
    restartRequired: ["mcpServers"],
  });
  // Serving, so the new trigger is armed at once: the interval runs.
  expect(agent.triggers?.isStarted).toBe(true);
  await agent.run("second");
  expect(model.requests.some((r) => systemOf(r).includes("Be thorough."))).toBe(true);

  write("{ not json");
  const refused = await rpc("agentd/reload");
  expect(refused.error.code).toBe(-32602);
  expect(refused.error.message).toContain(path);
  const before = model.requests.length;
  await agent.run("third");
  expect(systemOf(model.requests[before])).toContain("Be thorough.");
  // The file swapped for a symlink to a .env file: the refusal names a position, never the file's text.
  const secrets = join(dir, ".env");
  writeFileSync(secrets, "DB_PASSWORD=averyverysecretvalue\nAPI_KEY=sk-live-0123456789\n");
  rmSync(path);
  symlinkSync(secrets, path);
  const leaked = await rpc("agentd/reload");
  expect(leaked.error.message).toContain(`${path}:1:1: not valid JSON`);
  for (const text of [JSON.stringify(leaked), JSON.stringify(logger.records)]) {
    expect(text).not.toContain("DB_PASSWORD");
    expect(text).not.toContain("averyver");
  }
  expect(logger.records.filter((r) => r.event === "agent.reloaded")).toHaveLength(1);
  expect(logger.records.find((r) => r.event === "a2a.operator.failed")).toMatchObject({
    principal: "local",
    method: "agentd/reload",
    code: "E_CONFIG_INVALID",
  });
});

test("an agent not built from a configuration file refuses reload in one line", async () => {
  agent = createAgentFromConfig({}, { model: scriptedModel([]) });
  await expect(agent.reload()).rejects.toThrow("this agent was not built from a configuration file: there is nothing to reload");
});

test("configReloadSource: a live key the agent does not take from the file is reported as needing a restart", async () => {
  const configs = [
    { triggers: { interval: { every: 60_000, instruction: "a" } }, limits: { maxTurns: 2 } },
    { triggers: { interval: { every: 1_000, instruction: "b" } }, limits: { maxTurns: 3 } },
  ];
  let i = 0;
  const load = async () => configs[++i % 2]! as never;
  const fromFile = configReloadSource(configs[0] as never, load, () => ({}));
  expect((await fromFile()).restartRequired).toEqual([]);
  i = 0;
  const fromFlags = configReloadSource(configs[0] as never, load, () => ({}), new Set(["triggers"]));
  expect((await fromFlags()).restartRequired).toEqual(["triggers"]);
});
