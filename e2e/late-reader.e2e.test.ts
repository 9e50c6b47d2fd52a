/**
 * Every byte agentd prints reaches a reader that starts late and reads slowly (`agentd run … | (sleep 0.3;
 * cat)`), on every exit path — success, budget exceeded, failure, SIGTERM — from source and from the
 * compiled binary; and `serve --stdio` answers every pipelined request (the last one without a newline)
 * after stdin ends, all of it reaching the slow reader.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeServerCommand, startFakeGateway, type FakeGateway, type FakeServerCommand, type Turn } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { runIntoLateReader, until } from "./__fixtures__/late-pipe/late-pipe.ts";
import { COMPILE_FLAGS } from "@agentd/cli/compile-flags";

const binDir = mkdtempSync(join(tmpdir(), "agentd-late-bin-"));
const binary = join(binDir, "agentd");
beforeAll(async () => {
  const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, CLI_MAIN, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
}, 180_000);
afterAll(() => rmSync(binDir, { recursive: true, force: true }));

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let fake: FakeServerCommand | undefined;
afterEach(async () => {
  fake?.dispose();
  fake = undefined;
  await gateway?.close();
  gateway = undefined;
  ws?.cleanup();
  ws = undefined;
});

/** A deterministic answer of about `bytes` bytes, many lines of varying content. */
function bigText(bytes: number, tag: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${tag} line ${i}: ${"abcdefghij".repeat(i % 13)}${i % 7 === 0 ? " — é ü ✓" : ""}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return lines.join("\n");
}

async function world(script: Turn[], config: Record<string, unknown> = {}) {
  ws = new CliWorkspace();
  gateway = await startFakeGateway({ dialect: "openai", script, onExhausted: "repeat-last" });
  const configPath = ws.writeConfig({ model: { maxRetries: 0 }, ...config });
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
    AGENT_LOG_FORMAT: "json",
    AGENT_INTELLIGENCE: gateway.url,
    AGENT_MODEL: "test-model",
  };
  return { dir: ws.dir, config: configPath, env };
}

const lines = (received: Buffer) =>
  received
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const hasEvent = (stderr: string, event: string) => stderr.split("\n").some((l) => l.startsWith("{") && JSON.parse(l).event === event);

describe.each([
  ["from source", () => [process.execPath, CLI_MAIN]],
  ["compiled binary", () => [binary]],
] as const)("a late, slow pipe reader gets every byte (%s)", (_, agentd) => {
  test("run: the whole multi-megabyte text answer, exit 0", async () => {
    const answer = bigText(2_500_000, "text");
    const w = await world([{ text: answer }]);
    const run = await runIntoLateReader([...agentd(), "run", "--config", w.config, "Write a lot"], { cwd: w.dir, env: w.env });
    expect(run.code).toBe(0);
    expect(run.received.equals(Buffer.from(`${answer}\n`))).toBe(true);
  }, 60_000);

  test("run --json: the envelope parses and carries the whole answer", async () => {
    const answer = bigText(2_000_000, "json");
    const w = await world([{ text: answer }]);
    const run = await runIntoLateReader([...agentd(), "run", "--json", "--config", w.config, "Write a lot"], { cwd: w.dir, env: w.env });
    expect(run.code).toBe(0);
    const out = lines(run.received);
    expect(out).toHaveLength(1);
    expect(out[0].text).toBe(answer);
  }, 60_000);

  test("budget exceeded: the earlier run's output is whole, exit 3", async () => {
    const answer = bigText(1_500_000, "budget");
    const w = await world([{ text: answer }, { toolCalls: [{ name: "nothing_here", arguments: {} }] }]);
    const run = await runIntoLateReader(
      [...agentd(), "run", "--json", "--interval", "0", "--max-runs", "2", "--max-turns", "1", "--config", w.config, "Work"],
      { cwd: w.dir, env: w.env },
    );
    expect(run.code).toBe(3);
    const out = lines(run.received);
    expect(out.map((l) => l.status)).toEqual(["ok", "failed"]);
    expect(out[0].text).toBe(answer);
    expect(out[1].code).toBe("E_BUDGET_TURNS");
  }, 60_000);

  test("failure: the earlier run's output is whole, exit 4 when the model endpoint fails", async () => {
    const answer = bigText(1_500_000, "failure");
    const w = await world([{ text: answer }, { fault: "server-error", status: 500 }]);
    const run = await runIntoLateReader([...agentd(), "run", "--interval", "0", "--max-runs", "2", "--config", w.config, "Work"], {
      cwd: w.dir,
      env: w.env,
    });
    expect(run.code).toBe(4);
    expect(run.received.equals(Buffer.from(`${answer}\n`))).toBe(true);
  }, 60_000);

  test("SIGTERM: what was printed before the signal is whole, exit 143", async () => {
    const answer = bigText(2_000_000, "sigterm");
    const w = await world([{ text: answer }]);
    const run = await runIntoLateReader([...agentd(), "run", "--interval", "1h", "--config", w.config, "Work"], {
      cwd: w.dir,
      env: w.env,
      whileRunning: async (pid, stderr) => {
        await until(() => (hasEvent(stderr(), "trigger.run-end") ? true : undefined));
        process.kill(pid, "SIGTERM");
      },
    });
    expect(run.code).toBe(143);
    expect(run.received.equals(Buffer.from(`${answer}\n`))).toBe(true);
  }, 60_000);

  test("demo: the same bytes as when written to a file", async () => {
    ws = new CliWorkspace();
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      AGENT_LOG_FORMAT: "json",
      RUN_ID: "late-demo",
    };
    const direct = Bun.spawnSync([...agentd(), "demo", "--json"], { cwd: ws.dir, env, stdout: "pipe", stderr: "ignore" });
    expect(direct.exitCode).toBe(0);
    const run = await runIntoLateReader([...agentd(), "demo", "--json"], { cwd: ws.dir, env });
    expect(run.code).toBe(0);
    const strip = (b: Buffer) => ({ ...JSON.parse(b.toString("utf8")), durationMs: 0 });
    expect(strip(run.received)).toEqual(strip(direct.stdout));
  }, 60_000);

  test("mcp: a multi-megabyte tool result, the same bytes as when read whole", async () => {
    const big = bigText(2_000_000, "mcp");
    ws = new CliWorkspace();
    fake = fakeServerCommand({ tools: [{ name: "big", text: big }] });
    const config = ws.writeConfig({ mcpServers: { fake: fake.config } });
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      XDG_STATE_HOME: process.env.XDG_STATE_HOME ?? "",
      AGENT_LOG_FORMAT: "json",
    };
    const argv = [...agentd(), "mcp", "fake", "call", "big", "--config", config];
    const direct = Bun.spawnSync(argv, { cwd: ws.dir, env, stdout: "pipe", stderr: "ignore" });
    expect(direct.exitCode).toBe(0);
    expect(direct.stdout.toString("utf8")).toContain(big);
    const run = await runIntoLateReader(argv, { cwd: ws.dir, env });
    expect(run.code).toBe(0);
    expect(run.received.equals(direct.stdout)).toBe(true);
  }, 60_000);

  test("serve --stdio: every pipelined request is answered after stdin ends, the last one unterminated", async () => {
    const answer = bigText(300_000, "serve");
    const w = await world([{ text: answer }]);
    const requests = [
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "late", version: "1" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      ...Array.from({ length: 12 }, (_, i) => ({
        jsonrpc: "2.0",
        id: i + 1,
        method: "tools/call",
        params: { name: "agent.run", arguments: { instruction: `Run ${i + 1}` } },
      })),
    ];
    const stdinFile = join(w.dir, "requests.ndjson");
    writeFileSync(stdinFile, requests.map((r) => JSON.stringify(r)).join("\n")); // no newline after the last
    const run = await runIntoLateReader([...agentd(), "serve", "--stdio", "--grace", "60s", "--config", w.config], {
      cwd: w.dir,
      env: w.env,
      stdinFile,
    });
    expect(run.code).toBe(0);
    expect(run.received.at(-1)).toBe(0x0a);
    const answers = lines(run.received).filter((m) => m.id !== undefined);
    expect(answers.map((m) => m.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    for (const m of answers.filter((a) => a.id > 0)) expect(m.result?.content?.[0]?.text).toBe(answer);
    expect(run.stderr).toContain('"signal":"stdin-closed"');
  }, 90_000);
});
