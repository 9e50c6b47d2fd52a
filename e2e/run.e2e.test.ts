/**
 * End to end: the real `agentd run` process → a fake gateway (each dialect) over loopback HTTP → MCP servers
 * as real stdio children (a recording fixture, and the official server-everything).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { startFakeGateway, type Dialect, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CliWorkspace, events, REPO_ROOT } from "@agentd/test-support/cli-process";

const EVERYTHING = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

const toolLike = (req: RecordedRequest, suffix: string) => {
  const t = req.tools.find((n) => n.endsWith(suffix));
  if (!t) throw new Error(`no tool ending with ${suffix} in ${req.tools.join(",")}`);
  return t;
};

const modelEnv = (g: FakeGateway, dialect: Dialect) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: dialect,
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-test-secret-123",
});

describe.each(["openai", "responses", "anthropic", "gemini"] as const)("agentd run over %s", (dialect) => {
  test("a tool-using run prints the result; the run id arrives in _meta; the key never reaches stderr", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect,
      requireApiKey: "sk-test-secret-123",
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: `hello from ${dialect}` } }] }),
        (req) => ({ text: `The tool said: ${req.lastToolResult?.match(/echo: hello from \w+/)?.[0]}` }),
      ],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "Say hello through the echo tool"], {
      env: { ...modelEnv(gateway, dialect), RUN_ID: "run-e2e-42" },
    });
    expect(run.stderr).not.toContain("sk-test-secret-123");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`The tool said: echo: hello from ${dialect}\n`);
    const call = ws.received().find((m) => m.method === "tools/call");
    expect(call?.params?._meta?.["agentd.dev/run-id"]).toBe("run-e2e-42");
    expect(events(run).map((e) => e.event)).toContain("run.end");
  });
});

describe("agentd run against @modelcontextprotocol/server-everything", () => {
  test("calls its echo tool over stdio", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [
        (req) => ({ toolCalls: [{ name: toolLike(req, "echo"), arguments: { message: "ping-everything" } }] }),
        (req) => ({ text: `got: ${req.lastToolResult?.includes("ping-everything") ? "ping-everything" : "nothing"}` }),
      ],
    });
    const config = ws.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } });
    const run = await ws.run(["run", "--config", config, "--json", "Echo something"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.text).toBe("got: ping-everything");
    expect(out.toolCalls).toBe(1);
    expect(out.usage.totalTokens).toBeGreaterThan(0);
  });
});

describe("budgets and failures map to exit codes", () => {
  test("max turns → exit 3", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [(req) => ({ toolCalls: [{ name: toolLike(req, "echo"), arguments: { text: "again" } }] })],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "--max-turns", "2", "loop forever"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("agentd: turn budget exhausted: 2 model turns used without a final answer\n");
    // The next line says how to allow more.
    expect(run.stderr).toContain("To allow more, raise --max-turns N (or limits.maxTurns in agentd.json; default 20).\n");
    expect(run.stdout).toBe("");
  });

  test("max tokens → exit 3", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "a long answer", usage: { input: 5000, output: 5000 } }] });
    const run = await ws.run(["run", "--max-tokens", "100", "talk"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("To allow more, raise --max-tokens N");
  });

  test("max cost (with prices) → exit 3", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "pricey", usage: { input: 1_000_000, output: 1_000_000 } }] });
    const config = ws.writeConfig({ model: { prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } }, limits: { maxCostUsd: 1 } });
    const run = await ws.run(["run", "--config", config, "spend"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(3);
  });

  test("deadline cancels the in-flight tool call: the server sees notifications/cancelled → exit 3", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      script: [(req) => ({ toolCalls: [{ name: toolLike(req, "slow"), arguments: { ms: 120_000 } }] })],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const run = await ws.run(["run", "--config", config, "--deadline", "1500ms", "be slow"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(3);
    const received = ws.received();
    const call = received.find((m) => m.method === "tools/call");
    const cancelled = received.find((m) => m.method === "notifications/cancelled");
    expect(cancelled?.params?.requestId).toBe(call?.id);
    expect(received.some((m) => m.event === "handler-aborted")).toBe(true);
  });

  test("429 with Retry-After, then success → exit 0 after a retry", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ fault: "rate-limit", retryAfterSeconds: 0 }, { text: "recovered" }] });
    const run = await ws.run(["run", "hi"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("recovered\n");
    expect(gateway.requests.length).toBe(2);
  });

  test("persistent 500 → upstream unavailable, exit 4", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ fault: "server-error" }] });
    const run = await ws.run(["run", "hi"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("500");
    expect(gateway.requests.length).toBeGreaterThan(1);
  });

  test("a required MCP server that cannot start → exit 4 naming it", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "unused" }] });
    const config = ws.writeConfig({ mcpServers: { broken: { command: "/nonexistent/agentd-test-server" } } });
    const run = await ws.run(["run", "--config", config, "hi"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("broken");
  });
});

describe("usage errors are one clear line, exit 2", () => {
  test("no model endpoint", async () => {
    ws = new CliWorkspace();
    const run = await ws.run(["run", "hi"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("AGENT_INTELLIGENCE");
    expect(run.stderr).not.toContain("    at ");
  });
  test("bad config value names the field", async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({ limits: { maxTurns: -1 } });
    const run = await ws.run(["run", "--config", config, "hi"]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/limits\.maxTurns/);
    expect(run.stderr).not.toContain("    at ");
  });
  test("bad flag value", async () => {
    ws = new CliWorkspace();
    const run = await ws.run(["run", "--deadline", "soon", "hi"], { env: { AGENT_INTELLIGENCE: "http://127.0.0.1:9/v1" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--deadline");
  });
  test("instruction from stdin", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [(req) => ({ text: `you said: ${req.messages.at(-1)?.text}` })] });
    const run = await ws.run(["run"], { env: modelEnv(gateway, "openai"), stdin: "piped instruction\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("you said: piped instruction\n");
  });
});
