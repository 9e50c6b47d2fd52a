/**
 * Conversations that continue, over real `agentd run` processes (each run its own process: a restart
 * between every two) and the testkit's gateway, which records each request's messages:
 * - `--continue` sends the first exchange (tool turns and all) back to the model; `--json` names the
 *   conversation; `agentd conversations list | show | rm` see it; `--resume` of an unknown id is one line;
 * - the Anthropic dialect's signed thinking blocks survive the round trip through the store (the gateway
 *   checks every signature and refuses an edited or dropped block like the real API);
 * - past `durability.conversations.maxTokens` (counted from the usage the gateway reported) the oldest
 *   whole turns are dropped and no request ever carries a tool result without its call; with
 *   `growth: "summarise"` the model is first asked to summarise them (the request carries them), the next
 *   request carries the summary in their place, and the run's usage includes the summary request's.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway, type RecordedRequest } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";

setDefaultTimeout(120_000);
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
});

const envFor = (g: FakeGateway, dialect: string) => ({
  AGENT_INTELLIGENCE: g.url,
  AGENT_DIALECT: dialect,
  AGENT_MODEL: "test-model",
  AGENT_API_KEY: "sk-conv-test",
  XDG_STATE_HOME: join(ws.dir, "state"),
});
const echoTool = (req: RecordedRequest) => req.tools.find((n) => n.endsWith("echo")) ?? "echo";
/** A request that follows a tool result. */
const afterTool = (req: RecordedRequest) => (req.messages.at(-1)?.toolResults.length ?? 0) > 0;
/** Each run: call echo once, then answer `answer N` (N: the run's place in the conversation, from 0). */
const callThenAnswer = (req: RecordedRequest) =>
  afterTool(req)
    ? { text: `answer ${req.messages.filter((m) => m.role === "user" && m.toolResults.length === 0).length - 1}` }
    : { toolCalls: [{ name: echoTool(req), arguments: { text: "hi" } }] };

/** Every tool result a request carries has its call earlier in that request. */
function expectNoOrphans(req: RecordedRequest) {
  const called = new Set(req.messages.flatMap((m) => m.toolCalls.map((c) => c.id)));
  for (const r of req.messages.flatMap((m) => m.toolResults)) expect(called.has(r.toolCallId)).toBe(true);
}

describe("agentd run --continue", () => {
  test("the follow-up sends the first exchange back; --json names it; list, show, rm; an unknown id is one line", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [callThenAnswer],
    });
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() } });
    const env = envFor(gateway, "openai");
    const first = await ws.run(["run", "--config", config, "--continue", "--json", "Summarise the inbox"], { env });
    expect(first.code).toBe(0);
    const id = JSON.parse(first.stdout).conversationId as string;
    expect(id).toMatch(/^c-/);
    const second = await ws.run(["run", "--config", config, "--continue", "--json", "Now draft replies"], { env });
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).conversationId).toBe(id);
    // The second run's first request: the whole first exchange, then the follow-up.
    const followUp = gateway.requests[2]!;
    expect(followUp.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant", "user"]);
    expect(followUp.messages[1]?.text).toBe("Summarise the inbox");
    expect(followUp.messages[4]?.text).toBe("answer 0");
    expect(followUp.messages.at(-1)?.text).toBe("Now draft replies");
    expectNoOrphans(followUp);

    const list = await ws.run(["conversations", "list", "--config", config, "--json"], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id, runs: 2, messages: 8, title: "Summarise the inbox" }]);
    const show = await ws.run(["conversations", "show", id, "--config", config], { env });
    expect(show.stdout).toContain("user: Now draft replies");
    const unknown = await ws.run(["run", "--config", config, "--resume", "c-nope", "more"], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("no conversation c-nope");
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const both = await ws.run(["run", "--config", config, "--continue", "--resume", id, "more"], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("choose one");
    expect((await ws.run(["conversations", "rm", id, "--config", config], { env })).stdout).toBe(`removed conversation ${id}\n`);
    expect((await ws.run(["conversations", "list", "--config", config, "--json"], { env })).stdout).toBe("[]\n");
  });

  test("anthropic: signed thinking blocks survive the store — the gateway verifies each one sent back", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "anthropic",
      onExhausted: "repeat-last",
      script: [
        (req) =>
          afterTool(req)
            ? { reasoning: "plan: answer", text: "Echoed." }
            : { reasoning: `plan: echo for ${req.messages.length}`, toolCalls: [{ name: echoTool(req), arguments: { text: "hi" } }] },
      ],
    });
    const config = ws.writeConfig({ model: { thinking: { budgetTokens: 1024 } }, mcpServers: { rec: ws.recordingServer() } });
    const env = envFor(gateway, "anthropic");
    for (const text of ["Echo hi", "Again"]) {
      const run = await ws.run(["run", "--config", config, "--conversation", "thoughts", "--json", text], { env });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).conversationId).toBe("thoughts");
    }
    expect(gateway.requests.map((r) => r.rejected)).toEqual([undefined, undefined, undefined, undefined]);
    const body = gateway.requests[2]?.body as { messages: Array<{ role: string; content: string | Array<{ type: string }> }> };
    const types = body.messages.map((m) => (typeof m.content === "string" ? "text" : m.content.map((p) => p.type).join("+")));
    expect(types.slice(0, 4)).toEqual(["text", "thinking+tool_use", "tool_result", "thinking+text"]);
  });

  test("past its bound the oldest whole turns are dropped; no request carries a tool result without its call", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [callThenAnswer],
    });
    // The fake gateway counts about a token per 4 characters: a few exchanges outgrow 400 tokens.
    const config = ws.writeConfig({ mcpServers: { rec: ws.recordingServer() }, durability: { conversations: { maxTokens: 400 } } });
    const env = envFor(gateway, "openai");
    for (let i = 0; i < 6; i++) {
      const run = await ws.run(["run", "--config", config, "--conversation", "long", "--json", `request ${i} ${"x".repeat(300)}`], { env });
      expect(run.code).toBe(0);
    }
    for (const req of gateway.requests) expectNoOrphans(req);
    const last = gateway.requests.at(-2)!; // the last run's first request
    expect(last.messages[1]?.role).toBe("user");
    expect(last.messages[1]?.text).not.toContain("request 0");
    expect(last.messages.at(-1)?.text).toContain("request 5");
    const shown = JSON.parse((await ws.run(["conversations", "show", "long", "--config", config, "--json"], { env })).stdout);
    expect(shown.dropped % 4).toBe(0);
    expect(shown.dropped).toBeGreaterThan(0);
  });

  test("growth summarise: the summary request carries the cut turns, the next request the summary in their place; usage includes it", async () => {
    ws = new CliWorkspace();
    const isSummary = (req: RecordedRequest) => req.messages[0]?.text?.startsWith("You summarise") === true;
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [
        (req) =>
          isSummary(req)
            ? { text: "SUMMARY: the user sent requests and I echoed them.", usage: { input: 5000, output: 30 } }
            : callThenAnswer(req),
      ],
    });
    const config = ws.writeConfig({
      mcpServers: { rec: ws.recordingServer() },
      durability: { conversations: { maxTokens: 600, growth: "summarise" } },
    });
    const env = envFor(gateway, "openai");
    const results: Array<{
      usage: { inputTokens: number; outputTokens: number };
      conversationSummary?: { messages: number; usage: { inputTokens: number; outputTokens: number } };
    }> = [];
    for (let i = 0; i < 6; i++) {
      const run = await ws.run(["run", "--config", config, "--conversation", "long", "--json", `request ${i} ${"x".repeat(300)}`], { env });
      expect(run.code).toBe(0);
      results.push(JSON.parse(run.stdout));
    }
    for (const req of gateway.requests) expectNoOrphans(req);
    const at = gateway.requests.findIndex(isSummary);
    expect(at).toBeGreaterThan(0);
    const summary = gateway.requests[at]!;
    expect(summary.tools).toEqual([]);
    expect(summary.messages.at(-1)?.text).toContain("User: request 0");
    expect(summary.messages.at(-1)?.text).toContain("Tool rec__echo returned");
    // The request right after: the summary pair first, then whole kept turns — not the cut ones.
    const next = gateway.requests[at + 1]!;
    expect(next.messages[1]?.role).toBe("user");
    expect(next.messages[1]?.text).toStartWith("[conversation summary]");
    expect(next.messages[2]?.text).toBe("SUMMARY: the user sent requests and I echoed them.");
    expect(next.messages[3]?.role).toBe("user");
    expect(next.messages.some((m) => m.text?.startsWith("request 0 "))).toBe(false);
    // The run that summarised reports it apart, and its usage includes it.
    const summarised = results.filter((r) => r.conversationSummary);
    expect(summarised.length).toBeGreaterThan(0);
    for (const r of summarised) {
      expect(r.conversationSummary!.usage).toMatchObject({ inputTokens: 5000, outputTokens: 30 });
      expect(r.usage.inputTokens).toBeGreaterThan(5000);
      expect(r.usage.outputTokens).toBeGreaterThan(30);
    }
    for (const r of results.filter((x) => !x.conversationSummary)) expect(r.usage.inputTokens).toBeLessThan(5000);
    const shown = JSON.parse((await ws.run(["conversations", "show", "long", "--config", config, "--json"], { env })).stdout);
    expect(shown.summaries).toBeGreaterThan(0);
  });

  test("growth summarise, anthropic: kept turns' signed thinking blocks go back intact; the summary request carries none", async () => {
    ws = new CliWorkspace();
    const isSummary = (req: RecordedRequest) => JSON.stringify((req.body as { system?: unknown }).system ?? "").includes("You summarise");
    gateway = await startFakeGateway({
      dialect: "anthropic",
      onExhausted: "repeat-last",
      script: [
        (req) =>
          isSummary(req)
            ? { text: "SUMMARY of the earlier echoes." }
            : afterTool(req)
              ? { reasoning: "plan: answer", text: "Echoed." }
              : { reasoning: `plan: echo for ${req.messages.length}`, toolCalls: [{ name: echoTool(req), arguments: { text: "hi" } }] },
      ],
    });
    const config = ws.writeConfig({
      model: { thinking: { budgetTokens: 1024 } },
      mcpServers: { rec: ws.recordingServer() },
      durability: { conversations: { maxTokens: 700, growth: "summarise" } },
    });
    const env = envFor(gateway, "anthropic");
    for (let i = 0; i < 6; i++) {
      const run = await ws.run(["run", "--config", config, "--conversation", "thoughts", "--json", `echo ${i} ${"y".repeat(300)}`], {
        env,
      });
      expect(run.code).toBe(0);
    }
    // The gateway checks every signature sent back and refuses an edited or partial block, like the real API.
    expect(gateway.requests.map((r) => r.rejected).filter(Boolean)).toEqual([]);
    const summaries = gateway.requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThan(0);
    for (const r of summaries) {
      expect(r.bodyText).not.toContain('"type":"thinking"');
      expect(r.bodyText).not.toContain("plan: echo");
    }
    expect(summaries[0]!.bodyText).toContain("User: echo 0 ");
    // A later summary takes the earlier one in with the turns after it.
    if (summaries[1]) expect(summaries[1].bodyText).toContain("User: [conversation summary]");
    const after = gateway.requests[gateway.requests.indexOf(summaries[0]!) + 1]!;
    const body = after.body as { messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }> };
    const kinds = body.messages.map((m) => (typeof m.content === "string" ? "text" : m.content.map((p) => p.type).join("+")));
    expect(JSON.stringify(body.messages[0]?.content)).toContain("[conversation summary]");
    expect(JSON.stringify(body.messages[1]?.content)).toContain("SUMMARY of the earlier echoes.");
    expect(kinds.slice(3)).toContain("thinking+tool_use");
  });

  test("growth summarise: a summary request that fails falls back to dropping, logged once; the run answers", async () => {
    ws = new CliWorkspace();
    const isSummary = (req: RecordedRequest) => req.messages[0]?.text?.startsWith("You summarise") === true;
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [(req) => (isSummary(req) ? { fault: "server-error", status: 400 } : callThenAnswer(req))],
    });
    const config = ws.writeConfig({
      mcpServers: { rec: ws.recordingServer() },
      durability: { conversations: { maxTokens: 400, growth: "summarise" } },
    });
    const env = envFor(gateway, "openai");
    let failures = 0;
    for (let i = 0; i < 4; i++) {
      const run = await ws.run(["run", "--config", config, "--conversation", "long", "--json", `request ${i} ${"x".repeat(300)}`], { env });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).conversationSummary).toBeUndefined();
      failures += run.stderr.split("\n").filter((l) => l.includes("conversation.summary-failed")).length;
    }
    const asked = gateway.requests.filter(isSummary).length;
    expect(asked).toBeGreaterThan(0);
    expect(failures).toBe(asked);
    for (const req of gateway.requests) expectNoOrphans(req);
    const last = gateway.requests.at(-2)!;
    expect(last.messages[1]?.text).not.toContain("[conversation summary]");
    expect(last.messages[1]?.text).not.toContain("request 0");
  });

  test("an interval trigger naming a conversation: the second firing sends the first firing's answer", async () => {
    ws = new CliWorkspace();
    let firing = 0;
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [() => ({ text: `firing ${++firing} done` })],
    });
    const config = ws.writeConfig({});
    const env = envFor(gateway, "openai");
    const run = await ws.run(
      ["run", "--config", config, "--interval", "0", "--max-runs", "2", "--conversation", "nightly", "--json", "Check the queue"],
      {
        env,
      },
    );
    expect(run.code).toBe(0);
    expect(gateway.requests).toHaveLength(2);
    expect(gateway.requests[0]!.messages.map((m) => m.text)).toEqual([expect.any(String), "Check the queue"]);
    expect(gateway.requests[1]!.messages.slice(1).map((m) => m.text)).toEqual(["Check the queue", "firing 1 done", "Check the queue"]);
    const shown = JSON.parse((await ws.run(["conversations", "show", "nightly", "--config", config, "--json"], { env })).stdout);
    expect(shown.runs).toHaveLength(2);
  });

  test("a cron trigger naming a conversation: each firing sends the earlier firings' answers", async () => {
    ws = new CliWorkspace();
    let firing = 0;
    gateway = await startFakeGateway({
      dialect: "openai",
      onExhausted: "repeat-last",
      script: [() => ({ text: `firing ${++firing} done` })],
    });
    const config = ws.writeConfig({});
    // Every second (the time-zone cron's six-field form), one conversation; stopped once the third firing asked.
    const proc = Bun.spawn(
      [
        process.execPath,
        CLI_MAIN,
        "run",
        "--config",
        config,
        "--cron",
        "* * * * * *",
        "--tz",
        "UTC",
        "--conversation",
        "nightly",
        "Check the queue",
      ],
      {
        cwd: ws.dir,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...envFor(gateway, "openai") },
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    try {
      await gateway.waitForRequests(3, { timeoutMs: 60_000 });
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
    expect(gateway.requests[2]!.messages.slice(1).map((m) => m.text)).toEqual([
      "Check the queue",
      "firing 1 done",
      "Check the queue",
      "firing 2 done",
      "Check the queue",
    ]);
  });

  test("a schedule in the config names its conversation; a bad name is one line", async () => {
    ws = new CliWorkspace();
    gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "ok" }] });
    const config = ws.writeConfig({ triggers: { schedules: [{ cron: "0 7 * * *", instruction: "i", conversation: "no spaces here" }] } });
    const run = await ws.run(["run", "--config", config, "--mode", "cron"], { env: envFor(gateway, "openai") });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("conversation");
    expect(run.stderr).toContain("1-64 characters");
  });
});
