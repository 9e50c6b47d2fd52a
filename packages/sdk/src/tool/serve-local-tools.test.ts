/**
 * Tools defined in code with `serve: true`, served by `agent.serve()` over Streamable HTTP and called by
 * the official MCP SDK client: listed with their JSON Schemas (tools without `serve` are not), validated as
 * in a run, the caller's run id passed to `execute`, results typed by `outputSchema`.
 */
import { afterEach, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { z } from "zod";
import { createAgent, type Agent } from "../agent/create-agent.ts";
import { createAgentFromConfig } from "../agent/create-agent-from-config.ts";
import { parseConfig } from "../config/load.ts";
import { RUN_ID_META_KEY } from "../mcp/protocol/meta.ts";
import { Supervisor } from "../supervisor/supervisor.ts";
import { AgentdError } from "../wire/errors.ts";
import { tool } from "./tool.ts";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

test("served local tools: tools/list and tools/call through the official client, with validation and the run id", async () => {
  const runIds: string[] = [];
  const convert = tool({
    name: "convert_temperature",
    description: "Celsius to Fahrenheit",
    // The refinement is not expressible in JSON Schema: only the tool's own validation catches it.
    parameters: z.object({ celsius: z.number().refine((c) => c >= -273.15, "below absolute zero") }),
    outputSchema: z.object({ fahrenheit: z.number() }),
    serve: true,
    execute: ({ celsius }, { runId }) => {
      runIds.push(runId);
      return { fahrenheit: celsius * 1.8 + 32 };
    },
  });
  const secret = tool({
    name: "private_lookup",
    description: "only for the agent's own runs",
    parameters: z.object({}),
    execute: () => "hidden",
  });
  const agent: Agent = createAgent({ tools: [convert, secret] });
  cleanups.push(() => agent.close());
  const serving = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
  const client = new Client({ name: "served-tools-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serving.url!));
  cleanups.push(() => client.close());

  const { tools } = await client.listTools();
  const listed = tools.find((t) => t.name === "convert_temperature");
  expect(listed?.description).toBe("Celsius to Fahrenheit");
  expect(listed?.inputSchema).toMatchObject({ type: "object", properties: { celsius: { type: "number" } }, required: ["celsius"] });
  expect(listed?.outputSchema).toMatchObject({ type: "object", properties: { fahrenheit: { type: "number" } } });
  expect(tools.map((t) => t.name)).not.toContain("private_lookup");

  const ok = await client.callTool({
    name: "convert_temperature",
    arguments: { celsius: 100 },
    _meta: { [RUN_ID_META_KEY]: "run-from-caller" },
  });
  expect(ok.isError).toBeFalsy();
  expect(ok.structuredContent).toEqual({ fahrenheit: 212 });
  expect(runIds).toEqual(["run-from-caller"]);

  const wrongType = await client.callTool({ name: "convert_temperature", arguments: { celsius: "hot" } });
  expect(wrongType.isError).toBe(true);
  const refined = await client.callTool({ name: "convert_temperature", arguments: { celsius: -300 } });
  expect(refined.isError).toBe(true);
  expect((refined.content as Array<{ text: string }>)[0]?.text).toBe(
    'invalid arguments for "convert_temperature": celsius: below absolute zero',
  );
  expect(runIds).toHaveLength(1);
});

test('a local tool cannot take an MCP server\'s name space: a "/" in its name is refused, in a definition or a record key', () => {
  const refusal = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return AgentdError.isInstance(e) ? `${e.code}: ${e.message}` : String(e);
    }
    return "(accepted)";
  };
  expect(refusal(() => tool({ name: "fs/read", description: "d", parameters: z.object({}), execute: () => "" }))).toStartWith(
    'E_USAGE: tool "fs/read": "server/tool" names belong to the MCP servers\' tools',
  );
  const unnamed = tool({ description: "d", parameters: z.object({}), execute: () => "" });
  expect(refusal(() => createAgent({ tools: { "fs/read": unnamed }, mcpServers: { fs: { command: "true" } } }))).toContain(
    'tools.fs/read: "server/tool" names belong',
  );
});

test("beside subagents: the model is offered both sets, the served endpoint lists both; a name taken by a built-in tool is refused", async () => {
  const supervisor = new Supervisor({ model: {}, command: { command: process.execPath, args: ["-e", ""] }, graceMs: 1_000 });
  const echo = tool({
    name: "echo",
    description: "echo",
    parameters: z.object({ text: z.string() }),
    serve: true,
    execute: ({ text }) => text,
  });
  const agent = createAgent({ tools: [echo], subagents: supervisor });
  cleanups.push(() => agent.close());
  const offered = (await agent.listTools()).map((t) => t.name);
  expect(offered[0]).toBe("echo");
  expect(offered).toContain("subagent.spawn");
  const serving = await agent.serve({ http: { hostname: "127.0.0.1", port: 0 } });
  const client = new Client({ name: "served-tools-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(serving.url!));
  cleanups.push(() => client.close());
  const served = (await client.listTools()).tools.map((t) => t.name);
  expect(served).toEqual(expect.arrayContaining(["agent.run", "echo", "subagent.spawn"]));

  const squatter = tool({ name: "subagent.spawn", description: "d", parameters: z.object({}), execute: () => "" });
  const clash = createAgent({
    tools: [squatter],
    subagents: new Supervisor({ model: {}, command: { command: process.execPath, args: ["-e", ""] }, graceMs: 1_000 }),
  });
  cleanups.push(() => clash.close());
  const error = await clash.listTools().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(AgentdError.isInstance(error) && error.code).toBe("E_USAGE");
  expect((error as Error).message).toContain('"subagent.spawn" is taken by a built-in tool');
});

test("from the config shape too: createAgentFromConfig(config, { tools }) offers them beside the configured servers", async () => {
  const echo = tool({ name: "echo", description: "echo", parameters: z.object({ text: z.string() }), execute: ({ text }) => text });
  const agent = createAgentFromConfig(parseConfig({ scope: { allow: ["echo"] } }, {}), { tools: [echo] });
  cleanups.push(() => agent.close());
  expect((await agent.listTools()).map((t) => t.name)).toEqual(["echo"]);
});
