/**
 * An agent built from a configuration serves what its `serve` block says, from the SDK alone (no CLI):
 * `createAgentFromConfig(config).serve()` listens on `serve.http` with A2A as `serve.a2a` describes it (the
 * card's name and description, the agent's version, webhooks to `pushAllowedHosts`) and the operators of
 * `serve.operators` — over real loopback HTTP. And the settings that need an HTTP listener say so.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { parseConfig } from "../../config/load.ts";
import type { AgentdConfig } from "../../config/schema.ts";
import { reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import type { LanguageModel } from "../../model/language-model.ts";
import type { Agent } from "../create-agent.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";
import { serveOptionsFromConfig } from "./serve-from-config.ts";

setDefaultTimeout(30_000);

let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function rpc(base: string, method: string, params: Record<string, unknown>): Promise<any> {
  const res = await fetch(`${base}/a2a`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.json();
}

/** Serve the config with `serve()` and no argument; the base URL of the listener. */
async function serveConfig(config: AgentdConfig): Promise<string> {
  const model = scriptedModel(Array.from({ length: 4 }, () => reply("done")));
  agent = createAgentFromConfig(config, { model: model as LanguageModel, version: "9.9.9" });
  const serving = await agent.serve();
  expect(serving.url).toBeDefined();
  return serving.url!.origin;
}

test("serve() serves serve.a2a's card and push allow-list, and serve.operators are operators", async () => {
  const base = await serveConfig(
    parseConfig(
      {
        serve: {
          http: "127.0.0.1:0",
          a2a: { name: "inbox", description: "reads the inbox", pushAllowedHosts: ["hooks.example"] },
          operators: ["local"],
        },
      },
      {},
    ),
  );
  const card = await (await fetch(`${base}/.well-known/agent-card.json`)).json();
  expect(card).toMatchObject({ name: "inbox", description: "reads the inbox", version: "9.9.9" });

  const sent = await rpc(base, "SendMessage", {
    message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "work" }] },
    configuration: { returnImmediately: true },
  });
  const taskId = sent.result.task.id;
  const allowed = await rpc(base, "CreateTaskPushNotificationConfig", { taskId, url: "https://hooks.example/agentd" });
  expect(allowed.error).toBeUndefined();
  expect(allowed.result.url).toBe("https://hooks.example/agentd");
  const refused = await rpc(base, "CreateTaskPushNotificationConfig", { taskId, url: "https://elsewhere.example/agentd" });
  expect(refused.error.message).toContain("elsewhere.example is not");

  // The loopback caller without credentials is the principal `local`, an operator by the configuration.
  const status = await rpc(base, "agentd/status", {});
  expect(status.error).toBeUndefined();
  expect(status.result).toBeDefined();
});

test("without serve.a2a no A2A is served, and without serve.operators the operator channel is refused", async () => {
  const base = await serveConfig(parseConfig({ serve: { http: "127.0.0.1:0" } }, {}));
  expect((await fetch(`${base}/.well-known/agent-card.json`)).status).toBe(404);
  expect((await fetch(`${base}/healthz`)).status).toBe(200);

  await agent?.close();
  const withA2a = await serveConfig(parseConfig({ serve: { http: "127.0.0.1:0", a2a: true } }, {}));
  const status = await rpc(withA2a, "agentd/status", {});
  expect(status.error.message).toContain("for operators");
});

test("A2A, /metrics and the console without an HTTP listener are one usage line each", async () => {
  for (const [serve, flag] of [
    [{ a2a: true }, "--a2a"],
    [{ metrics: true }, "--metrics"],
    [{ console: true }, "--console"],
  ] as const)
    await expect(serveOptionsFromConfig(parseConfig({ serve }, {}), {}, {})).rejects.toThrow(
      `${flag} serves on the HTTP listener: add --http HOST:PORT (or serve.http in the config)`,
    );
  await expect(serveOptionsFromConfig(parseConfig({ serve: { http: "127.0.0.1:0", a2a: true } }, {}), { stdio: true }, {})).rejects.toThrow(
    "--a2a serves on the HTTP listener",
  );
  expect(await serveOptionsFromConfig(parseConfig({}, {}), {}, {})).toEqual({ stdio: true });
});
