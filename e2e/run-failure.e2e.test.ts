/**
 * End to end, the real `agentd run` against the fake gateway over loopback HTTP: when a run fails although
 * nothing broke (exit 1: a content filter, an empty answer, a structured answer that never validates, the
 * model giving up), and what `--json` prints for every failure — one JSON document on stdout with the
 * status, the error's code and message, the exit code, usage and turns — for exit 1, 2, 3 and 4.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeGateway, type Dialect, type FakeGateway, type RecordedRequest, type Turn } from "@agentd/testkit";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  ws?.cleanup();
  gateway = ws = undefined;
});

const modelEnv = (g: FakeGateway, dialect: Dialect) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: dialect,
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "k",
});
const echo = (req: RecordedRequest) => req.tools.find((n) => n.endsWith("echo"))!;

/** Run the CLI against a fresh gateway playing `script`. */
async function runAgainst(
  script: Turn[],
  args: string[],
  options: {
    dialect?: Dialect;
    config?: Record<string, unknown>;
    repeat?: boolean;
    env?: Record<string, string>;
    requireApiKey?: string;
  } = {},
) {
  const dialect = options.dialect ?? "openai";
  ws = new CliWorkspace();
  gateway = await startFakeGateway({
    dialect,
    script,
    ...(options.repeat ? { onExhausted: "repeat-last" as const } : {}),
    ...(options.requireApiKey ? { requireApiKey: options.requireApiKey } : {}),
  });
  const config = ws.writeConfig(options.config ?? {});
  return ws.run(["run", "--config", config, ...args], { env: { ...modelEnv(gateway, dialect), ...options.env } });
}

describe("exit 1: the run failed although nothing broke", () => {
  for (const dialect of ["openai", "anthropic", "gemini"] as const)
    test(`a content-filter finish (${dialect}) exits 1, prints nothing on stdout, names the cause`, async () => {
      const run = await runAgainst([{ text: "Here is how to", finishReason: "content_filter" }], ["Say something filtered"], { dialect });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("agentd: the provider's content filter withheld the model's answer");
    });

  test("an empty final answer exits 1", async () => {
    const run = await runAgainst([{ text: "" }], ["Answer nothing"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("agentd: the model's final answer was empty");
  });

  test("a structured answer that never validates exits 1 after its re-asks", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", onExhausted: "repeat-last", script: [{ text: "no JSON here" }] });
    const schemaFile = join(ws.dir, "invoice.schema.json");
    writeFileSync(schemaFile, JSON.stringify({ type: "object", properties: { total: { type: "number" } }, required: ["total"] }));
    const run = await ws.run(["run", "--output-schema", schemaFile, "Extract the invoice"], { env: modelEnv(gateway, "openai") });
    expect(run.code).toBe(1);
    expect(gateway.requests).toHaveLength(3); // the answer, then two re-asks
    expect(run.stderr).toContain("did not match the output schema after 2 retries");
  });

  test("the model gives up (GIVE_UP: …, as the system prompt tells it) exits 1 with its reason", async () => {
    const run = await runAgainst([{ text: "GIVE_UP: /data/inbox.md does not exist" }], ["Summarise /data/inbox.md"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("agentd: the model gave up: /data/inbox.md does not exist");
    expect(gateway!.requests[0]!.messages[0]!.text).toContain("GIVE_UP:");
  });

  test("a model without native tools gives up with the give_up action: exit 1", async () => {
    const run = await runAgainst([{ text: 'I tried. {"action":"give_up","reason":"no tool reads PDFs"}' }], ["Read the PDF"], {
      config: { model: { nativeTools: false } },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("agentd: the model gave up: no tool reads PDFs");
    expect(gateway!.requests[0]!.messages[0]!.text).toContain('"action":"give_up"');
  });
});

describe("--json prints one JSON document, on failure too", () => {
  test("success: the envelope with status ok and exit code 0", async () => {
    const run = await runAgainst([{ text: "all good" }], ["--json", "hi"], { env: { RUN_ID: "run-json-ok" } });
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({
      runId: "run-json-ok",
      status: "ok",
      text: "all good",
      exitCode: 0,
      turns: 1,
      toolCalls: 0,
      stopReason: "final",
    });
    expect(doc.usage.totalTokens).toBeGreaterThan(0);
  });

  test("exit 1: status failed, the error's code, message and reason, usage and turns; run.end carries the message", async () => {
    const run = await runAgainst([{ text: "GIVE_UP: no access to the repository" }], ["--json", "Triage the issues"], {
      env: { RUN_ID: "run-json-1" },
    });
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({
      runId: "run-json-1",
      status: "failed",
      error: { code: "E_RUN_FAILED", reason: "gave-up", message: "the model gave up: no access to the repository" },
      exitCode: 1,
      turns: 1,
      toolCalls: 0,
      stopReason: "failed",
    });
    expect(doc.usage.totalTokens).toBeGreaterThan(0);
    expect(typeof doc.durationMs).toBe("number");
    const end = events(run).find((e) => e.event === "run.end");
    expect(end).toMatchObject({
      level: "warn",
      error: "E_RUN_FAILED",
      message: "the model gave up: no access to the repository",
      reason: "gave-up",
    });
  });

  test("exit 3: status budget_exceeded with the budget's code, turns and tool calls so far", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [(req) => ({ toolCalls: [{ name: echo(req), arguments: { text: "again" } }] })],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const looped = await ws.run(["run", "--config", config, "--json", "--max-turns", "2", "loop forever"], {
      env: modelEnv(gateway, "openai"),
    });
    expect(looped.code).toBe(3);
    const doc = JSON.parse(looped.stdout);
    expect(doc).toMatchObject({
      status: "budget_exceeded",
      error: { code: "E_BUDGET_TURNS" },
      exitCode: 3,
      turns: 2,
      toolCalls: 1,
      stopReason: "max-turns",
    });
    expect(doc.error.message).toContain("turn");
    expect(doc.usage.totalTokens).toBeGreaterThan(0);
  });

  test("exit 4: status upstream_unavailable naming what failed", async () => {
    const run = await runAgainst([{ fault: "server-error" }], ["--json", "hi"], { repeat: true });
    expect(run.code).toBe(4);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ status: "upstream_unavailable", error: { code: "E_UPSTREAM" }, exitCode: 4 });
    expect(doc.error.message).toContain("500");
  });

  test("exit 5: a model endpoint that refuses the key is status unauthorized, not an outage", async () => {
    const run = await runAgainst([{ text: "unused" }], ["--json", "hi"], { requireApiKey: "sk-the-right-key-0123456789" });
    expect(run.code).toBe(5);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ status: "unauthorized", error: { code: "E_UPSTREAM" }, exitCode: 5 });
    expect(doc.error.message).toContain("401");
  });

  test("exit 4 before the model is asked: a required MCP server that cannot start", async () => {
    const run = await runAgainst([{ text: "unused" }], ["--json", "hi"], {
      config: { mcpServers: { broken: { command: "/nonexistent/agentd-test-server" } } },
    });
    expect(run.code).toBe(4);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ status: "upstream_unavailable", exitCode: 4, turns: 0 });
    expect(doc.error.message).toContain("broken");
  });

  test("exit 2: a configuration mistake is a JSON document too", async () => {
    ws = new CliWorkspace();
    const config = ws.writeConfig({ limits: { maxTurns: -1 } });
    const run = await ws.run(["run", "--config", config, "--json", "hi"]);
    expect(run.code).toBe(2);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ status: "invalid", error: { code: "E_CONFIG_INVALID" }, exitCode: 2 });
    expect(doc.error.message).toContain("limits.maxTurns");
  });
});
