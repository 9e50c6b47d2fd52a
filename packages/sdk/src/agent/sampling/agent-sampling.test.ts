/**
 * createAgent with sampling on, against the real server-everything over stdio: the sampling request is
 * answered by the agent's model without the run's tools, billed to the run (result.sampling, usage) and
 * counted per server in `agent.status().sampling`.
 */
import { afterEach, expect, test } from "bun:test";
import { resolve } from "node:path";
import { callTools, reply, scriptedModel } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgent, type Agent } from "../create-agent.ts";

const EVERYTHING = resolve(import.meta.dir, "../../../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

test("a sampling request during a tool call is billed to that run and counted per server", async () => {
  const model = scriptedModel([
    (req) => callTools([[req.tools!.find((t) => t.name.endsWith("trigger-sampling-request"))!.name, { prompt: "hello" }]]),
    reply("SAMPLED", { inputTokens: 70, outputTokens: 30, totalTokens: 100 }),
    (req) => reply(req.messages.at(-1)?.role === "tool" && JSON.stringify(req.messages.at(-1)).includes("SAMPLED") ? "got it" : "missing"),
  ]);
  agent = createAgent({
    model,
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
    capabilities: { sampling: { all: {} } },
  });
  const result = await agent.run("sample");
  expect(result.text).toBe("got it");
  expect(result.sampling).toEqual({ requests: 1, usage: { inputTokens: 70, outputTokens: 30, totalTokens: 100 } });
  expect(result.usage.inputTokens).toBeGreaterThanOrEqual(70 + 10 + 10);
  expect(model.requests[1]!.tools).toBeUndefined();
  expect(agent.status().sampling?.everything?.requests).toBe(1);
}, 30_000);

test("a server switched off (servers.X: false) is not offered sampling", async () => {
  const model = scriptedModel([]);
  agent = createAgent({
    model,
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } },
    capabilities: { sampling: { all: {}, servers: { everything: false } } },
  });
  const tools = await agent.listTools();
  expect(tools.length).toBeGreaterThan(0);
  expect(tools.some((t) => t.name.endsWith("trigger-sampling-request"))).toBe(false);
}, 30_000);
