/**
 * Served prompts (prompts as a server) through a real `agentd serve` with the official clients: the 1.32.2 SDK
 * client over stdio (2025-11-25) — declaration, pagination of prompts/list, expansion, -32602 for missing or
 * undeclared arguments, completion filtered by prefix and capped at 100 with total/hasMore, agent.run with
 * `{ prompt, arguments }` reaching the model as the instruction; the v2 client over Streamable HTTP
 * (2026-07-28, stateless); nothing declared without a prompts block; and agentd's own client (`run --prompt`,
 * `mcp complete`) against a served agentd. What agentd sent validates against the official schema of the
 * revision spoken.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { tapMessages } from "./__fixtures__/serve/collector.ts";
import { modelEnv } from "./__fixtures__/serve/serve-env.ts";
import { startServe, stopAllServe } from "./__fixtures__/serve/serve-process.ts";
import { CONFORMANCE_PROMPTS } from "./__fixtures__/serve/served-prompts.ts";
import { NEEDS_SHARED, sharedSpecsAvailable, validateOfficial } from "@agentd/test-support/oracle";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let legacy: LegacyClient | undefined;
const wires: Array<{ revision: string; messages: Record<string, any>[] }> = [];
afterEach(async () => {
  await legacy?.close();
  await stopAllServe();
  await gateway?.close();
  ws?.cleanup();
  legacy = gateway = ws = undefined;
}, 30_000);

const GENERATED = Object.fromEntries(
  Array.from({ length: 120 }, (_, i) => [`p${String(i).padStart(3, "0")}`, { description: `generated prompt ${i}`, text: `Prompt ${i}` }]),
);
const MANY = {
  description: "An argument with 150 values",
  arguments: [{ name: "n", required: true, completions: Array.from({ length: 150 }, (_, i) => `v${i}`) }],
  text: "n={{n}}",
};

async function world(prompts?: Record<string, unknown>) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ text: "verdict: ship it" }] });
  const config = ws.writeConfig(prompts ? { prompts } : {});
  return { config, env: modelEnv(gateway) };
}

async function stdioClient(config: string, env: Record<string, string>) {
  const transport = new LegacyStdioClientTransport({
    command: process.execPath,
    args: [CLI_MAIN, "serve", "--stdio", "--config", config],
    env,
    stderr: "pipe",
  });
  legacy = new LegacyClient({ name: "v1-client", version: "1.32.2" });
  await legacy.connect(transport);
  return { client: legacy, wire: tapMessages(transport) };
}

async function invalidParams(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(McpError);
  expect((e as McpError).code).toBe(-32602);
  return (e as McpError).message;
}

describe("agentd serve with configured prompts", () => {
  test("stdio, 2025-11-25: listed in pages, expanded, completed, refused with -32602, run by agent.run", async () => {
    const { config, env } = await world({ ...CONFORMANCE_PROMPTS, ...GENERATED, many: MANY });
    const { client, wire } = await stdioClient(config, env);
    expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, completions: {} });

    const first = await client.listPrompts();
    expect(first.prompts.length).toBe(100);
    expect(first.nextCursor).toBeString();
    const second = await client.listPrompts({ cursor: first.nextCursor! });
    expect(second.nextCursor).toBeUndefined();
    const names = [...first.prompts, ...second.prompts].map((p) => p.name);
    expect(names.length).toBe(124);
    expect(new Set(names).size).toBe(124);
    expect(first.prompts.find((p) => p.name === "review")).toEqual({
      name: "review",
      description: "Review a pull request",
      arguments: [
        { name: "pr", description: "The pull request number", required: true },
        { name: "focus", description: "What to look at first" },
      ],
    });

    expect(await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } })).toEqual({
      description: "A prompt with two required arguments",
      messages: [{ role: "user", content: { type: "text", text: "Prompt with arguments: arg1='a', arg2='b'" } }],
    });
    const review = await client.getPrompt({ name: "review", arguments: { pr: "42" } });
    expect(review.messages.map((m) => [m.role, m.content.type === "text" ? m.content.text : ""])).toEqual([
      ["user", "Review pull request 42. Focus: "],
      ["assistant", "I will read the diff of 42 first."],
      ["user", "Then answer with a verdict."],
    ]);
    expect(await invalidParams(client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg2: "b" } }))).toContain("arg1");
    expect(await invalidParams(client.getPrompt({ name: "review", arguments: { pr: "1", colour: "red" } }))).toContain(
      "no argument colour",
    );
    expect(await invalidParams(client.getPrompt({ name: "nope" }))).toContain("nope");

    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "pr", value: "42" } })).completion,
    ).toEqual({ values: ["42", "420"], total: 2, hasMore: false });
    expect(
      (await client.complete({ ref: { type: "ref/prompt", name: "review" }, argument: { name: "focus", value: "" } })).completion.values,
    ).toEqual([]);
    const many = (await client.complete({ ref: { type: "ref/prompt", name: "many" }, argument: { name: "n", value: "" } })).completion;
    expect(many.values.length).toBe(100);
    expect(many.total).toBe(150);
    expect(many.hasMore).toBe(true);
    expect(
      await invalidParams(client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } })),
    ).toContain("nope");

    const run = await client.callTool({ name: "agent.run", arguments: { prompt: "review", arguments: { pr: "42", focus: "tests" } } });
    expect(run.isError).toBeFalsy();
    expect(run.content).toEqual([{ type: "text", text: "verdict: ship it" }]);
    const user = gateway!.requests[0]!.messages.filter((m) => m.role === "user")
      .map((m) => m.text)
      .join("\n");
    expect(user).toContain(
      "Review pull request 42. Focus: tests\n\n(assistant) I will read the diff of 42 first.\n\nThen answer with a verdict.",
    );
    const missing = await client.callTool({ name: "agent.run", arguments: { prompt: "review", arguments: {} } });
    expect(missing).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "prompt review is missing the required argument pr" }],
    });
    const both = await client.callTool({ name: "agent.run", arguments: { prompt: "review", instruction: "x" } });
    expect(both.isError).toBe(true);
    expect(gateway!.requests.length).toBe(1);
    wires.push({ revision: "2025-11-25", messages: wire.items });
  }, 60_000);

  test("without a prompts block: neither prompts nor completions declared, prompts/list is -32601, agent.run needs an instruction", async () => {
    const { config, env } = await world();
    const { client } = await stdioClient(config, env);
    const caps = client.getServerCapabilities() ?? {};
    expect(caps.prompts).toBeUndefined();
    expect(caps.completions).toBeUndefined();
    const e = await client.listPrompts().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((e as McpError).code).toBe(-32601);
    const tool = (await client.listTools()).tools.find((t) => t.name === "agent.run");
    expect(tool?.inputSchema.required).toEqual(["instruction"]);
    expect(Object.keys(tool?.inputSchema.properties ?? {})).not.toContain("prompt");
  }, 60_000);

  test("prompts without completion values: prompts declared, completions not", async () => {
    const { config, env } = await world({ test_simple_prompt: CONFORMANCE_PROMPTS.test_simple_prompt });
    const { client } = await stdioClient(config, env);
    expect(client.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
    expect(client.getServerCapabilities()?.completions).toBeUndefined();
  }, 60_000);

  test("Streamable HTTP, 2026-07-28 (the v2 client, stateless): list, get, complete and agent.run with a prompt", async () => {
    const { config, env } = await world(CONFORMANCE_PROMPTS);
    const serve = await startServe(["--http", "127.0.0.1:0", "--config", config, "--grace", "1s"], { env });
    const transport = new StreamableHTTPClientTransport(serve.url);
    const client = new Client({ name: "v2-client", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    const wire = tapMessages(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      expect(client.getServerCapabilities()).toMatchObject({ prompts: { listChanged: true }, completions: {} });
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual([
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "review",
      ]);
      const got = await client.getPrompt({ name: "review", arguments: { pr: "7" } });
      expect(got.messages[0]!.content).toEqual({ type: "text", text: "Review pull request 7. Focus: " });
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "TEST" },
      });
      expect(completion.completion.values).toEqual(["testValue1", "Test-two"]);
      const run = await client.callTool({ name: "agent.run", arguments: { prompt: "test_simple_prompt" } });
      expect(run.content).toEqual([{ type: "text", text: "verdict: ship it" }]);
      const user = gateway!.requests[0]!.messages.filter((m) => m.role === "user")
        .map((m) => m.text)
        .join("\n");
      expect(user).toContain("This is a simple prompt for testing.");
      wires.push({ revision: "2026-07-28", messages: wire.items });
    } finally {
      await client.close();
    }
  }, 60_000);

  test("agentd as the client of agentd serve: run --prompt and mcp complete use the served prompts", async () => {
    const { env } = await world();
    const served = join(ws!.dir, "served.json");
    writeFileSync(served, JSON.stringify({ prompts: CONFORMANCE_PROMPTS }));
    const client = ws!.writeConfig({
      mcpServers: { self: { command: process.execPath, args: [CLI_MAIN, "serve", "--stdio", "--config", served] } },
    });
    const completed = await ws!.run(["mcp", "--config", client, "self", "complete", "review", "pr", "42"]);
    expect(completed.stdout).toBe("42\n420\n");
    const run = await ws!.run(["run", "--config", client, "--prompt", "self/review", "--arg", "pr=41"], { env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("verdict: ship it\n");
    const user = gateway!.requests[0]!.messages.filter((m) => m.role === "user")
      .map((m) => m.text)
      .join("\n");
    expect(user).toContain("Review pull request 41. Focus: \n\n(assistant) I will read the diff of 41 first.");
  }, 60_000);

  test.skipIf(!sharedSpecsAvailable())(
    `${NEEDS_SHARED} every message agentd sent validates against the official schema of its revision`,
    () => {
      expect(wires.map((w) => w.revision)).toEqual(["2025-11-25", "2026-07-28"]);
      for (const { revision, messages } of wires) {
        expect(messages.filter((m) => "result" in m).length).toBeGreaterThanOrEqual(4);
        const wrong = messages.flatMap((m) => {
          const r = validateOfficial(revision, m);
          return r.ok ? [] : [`${JSON.stringify(m).slice(0, 160)}: ${r.errors}`];
        });
        expect(wrong).toEqual([]);
      }
    },
  );
});
