import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { LogRecord } from "@agentd/sdk";
import { drainingRecord } from "./modes/shutdown-signals.ts";
import { prettyRecord, stderrLogger } from "./telemetry.ts";

const TS = "2026-01-02T03:04:05.678Z";
const localClock = new Date(TS).toTimeString().slice(0, 8);
const sink = () => {
  const lines: string[] = [];
  return { lines, write: (s: string) => void lines.push(s) };
};

// The logger reads AGENT_LOG_* from the environment; keep the tests independent of the caller's shell.
// NO_COLOR: the pretty format colours only when stderr is a terminal, which it may be when a person runs this.
const saved = {
  AGENT_LOG_FORMAT: process.env.AGENT_LOG_FORMAT,
  AGENT_LOG_LEVEL: process.env.AGENT_LOG_LEVEL,
  NO_COLOR: process.env.NO_COLOR,
};
beforeEach(() => {
  delete process.env.AGENT_LOG_FORMAT;
  delete process.env.AGENT_LOG_LEVEL;
  process.env.NO_COLOR = "1";
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
});

describe("stderrLogger json", () => {
  test("one JSON object a line, with ts, level, event and the fields", () => {
    const out = sink();
    const log = stderrLogger({ format: "json", write: out.write });
    log.info("tool.call", { runId: "r1", name: "fs__read", arguments: { path: "/x" } });
    log.child({ server: "fs" }).warn("mcp.exit", { code: 1 });
    expect(out.lines).toHaveLength(2);
    expect(out.lines.every((l) => l.endsWith("\n") && l.indexOf("\n") === l.length - 1)).toBe(true);
    const [a, b] = out.lines.map((l) => JSON.parse(l));
    expect(a).toMatchObject({ level: "info", event: "tool.call", runId: "r1", name: "fs__read", arguments: { path: "/x" } });
    expect(Number.isNaN(Date.parse(a.ts))).toBe(false);
    expect(b).toMatchObject({ level: "warn", event: "mcp.exit", server: "fs", code: 1 });
  });

  test("level filter and secrets redacted", () => {
    const out = sink();
    const log = stderrLogger({ format: "json", level: "warn", write: out.write });
    log.info("dropped");
    log.error("model.error", { apiKey: "sk-live-123", status: 401 });
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).not.toContain("sk-live-123");
    expect(JSON.parse(out.lines[0]!)).toMatchObject({ event: "model.error", apiKey: "[redacted]", status: 401 });
  });

  test("AGENT_LOG_FORMAT and AGENT_LOG_LEVEL choose when options do not", () => {
    process.env.AGENT_LOG_FORMAT = "json";
    process.env.AGENT_LOG_LEVEL = "debug";
    const out = sink();
    stderrLogger({ write: out.write }).debug("mcp.notification_ignored", { method: "x" });
    expect(JSON.parse(out.lines[0]!)).toMatchObject({ level: "debug", event: "mcp.notification_ignored" });
    process.env.AGENT_LOG_FORMAT = "pretty";
    const pretty = sink();
    stderrLogger({ write: pretty.write }).info("trigger.fire", { triggerId: "t1", kind: "interval", runId: "run-9" });
    expect(pretty.lines[0]!.startsWith("{")).toBe(false);
    expect(pretty.lines[0]).toContain("t1 (interval) → run-9");
  });
});

describe("stderrLogger pretty", () => {
  test("run.end shows the cache and reasoning split when the usage has one", () => {
    const out = sink();
    const usage = {
      inputTokens: 900,
      outputTokens: 80,
      totalTokens: 980,
      cacheReadTokens: 700,
      cacheWriteTokens: 100,
      reasoningTokens: 30,
    };
    stderrLogger({ format: "pretty", write: out.write }).info("run.end", {
      runId: "r",
      usage,
      turns: 2,
      toolCalls: 1,
      stopReason: "final",
      durationMs: 20,
    });
    expect(out.lines[0]).toContain("final · 900 in / 80 out tokens (700 cached, 100 cache-written, 30 reasoning) · 20ms");
  });

  test("peers' text in a line (a server's stderr, a tool's name, an upstream's error) is shown escaped", () => {
    const esc = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\r";
    const out = sink();
    const log = stderrLogger({ format: "pretty", write: out.write });
    log.info("mcp.stderr", { server: "fs", line: `oops${esc}` });
    log.info("tool.result", { runId: "r", turn: 1, name: `t${esc}`, qualifiedName: `fs/t${esc}`, isError: true, size: 1, durationMs: 1 });
    log.warn("mcp.failed", { server: "fs", error: `bad${esc}`, data: { message: `deep\x9b${esc}` } });
    for (const line of out.lines) {
      expect(line.trimEnd()).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(line).toContain("\\u001b]0;pwned\\u0007");
    }
  });

  test("a run reads as compact lines: time, badge, event, key fields", () => {
    const out = sink();
    const log = stderrLogger({ format: "pretty", write: out.write });
    log.info("run.start", { runId: "run-1", provider: "openai-compatible", model: "qwen3", tools: 2, mode: "native" });
    log.info("tool.call", {
      runId: "run-1",
      turn: 1,
      toolCallId: "c1",
      name: "fs__read",
      qualifiedName: "fs/read",
      argumentsSize: 14,
      arguments: { path: "/a" },
    });
    log.info("tool.result", {
      runId: "run-1",
      turn: 1,
      toolCallId: "c1",
      name: "fs__read",
      qualifiedName: "fs/read",
      isError: true,
      size: 412,
      durationMs: 12,
    });
    log.info("run.end", {
      runId: "run-1",
      usage: { inputTokens: 590, outputTokens: 65, totalTokens: 655 },
      turns: 3,
      toolCalls: 2,
      stopReason: "final",
      durationMs: 1530,
    });
    log.warn("mcp.disconnected", { server: "fs", reason: "exit", message: "child exited" });
    const lines = out.lines.map((l) => l.replace(/\n$/, ""));
    expect(out.lines.every((l) => l.endsWith("\n"))).toBe(true);
    for (const l of lines) expect(l).toMatch(/^\d\d:\d\d:\d\d (INF|WRN) /);
    expect(lines[0]).toContain("INF run.start     run-1 · qwen3 via openai-compatible · 2 tools · native");
    expect(lines[1]).toMatch(/tool\.call +fs\/read \{"path":"\/a"\}$/);
    expect(lines[1]).not.toContain("toolCallId");
    expect(lines[2]).toMatch(/tool\.result +fs\/read error · 412 B · 12ms$/);
    expect(lines[3]).toMatch(/run\.end +final · 590 in \/ 65 out tokens · 1\.5s · 3 turns · 2 tool calls · run-1$/);
    // A record's own `message` field is data, not a rendering option.
    expect(lines[4]).toMatch(/WRN mcp\.disconnected +server=fs reason=exit message=child exited$/);
    expect(lines.join("\n")).not.toContain("\x1b[");
  });

  test("a tool's progress reads as tool, progress of total, its message and the time so far", () => {
    const out = sink();
    stderrLogger({ format: "pretty", write: out.write }).info("tool.progress", {
      runId: "r",
      turn: 1,
      toolCallId: "c1",
      name: "slow_work",
      qualifiedName: "slow/work",
      progress: 3,
      total: 10,
      message: "step 3 of 10",
      elapsedMs: 1200,
    });
    expect(out.lines[0]).toMatch(/INF tool\.progress +slow\/work 3\/10 · step 3 of 10 · 1\.2s\n$/);
  });

  test("identical records are all printed (no throttling)", () => {
    const out = sink();
    const log = stderrLogger({ format: "pretty", write: out.write });
    for (let i = 0; i < 8; i++) log.info("mcp.stderr", { server: "fs", line: "same line" });
    expect(out.lines).toHaveLength(8);
    expect(out.lines[7]).toContain("mcp.stderr    [fs] same line");
  });

  test("level filter applies to the pretty format too", () => {
    const out = sink();
    const log = stderrLogger({ format: "pretty", level: "error", write: out.write });
    log.warn("budget.warning", { message: "80% of tokens" });
    log.error("run.failed", { error: "boom" });
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toMatch(/ERR run\.failed +error=boom/);
  });
});

describe("prettyRecord", () => {
  const rec = (level: LogRecord["level"], event: string, fields: Record<string, unknown> = {}): LogRecord => ({
    ts: TS,
    level,
    event,
    ...fields,
  });

  test("local time, badge, event and run.end usage and duration", () => {
    const line = prettyRecord(
      rec("warn", "run.end", {
        runId: "r",
        usage: { inputTokens: 1, outputTokens: 2 },
        turns: 1,
        toolCalls: 0,
        stopReason: "max-turns",
        error: "E_BUDGET_TURNS",
        durationMs: 125_000,
      }),
      false,
    );
    expect(line).toBe(
      `${localClock} WRN run.end       max-turns (E_BUDGET_TURNS) · 1 in / 2 out tokens · 2m05s · 1 turn · 0 tool calls · r`,
    );
  });

  test("unknown events show their fields, long values cut", () => {
    const line = prettyRecord(rec("debug", "custom.thing", { n: 3, blob: "x".repeat(500), nested: { a: 1 } }), false);
    expect(line.startsWith(`${localClock} DBG custom.thing  n=3 blob=xxx`)).toBe(true);
    expect(line).toContain('… nested={"a":1}');
    expect(line.length).toBeLessThan(220);
  });

  test("color paints the badge and dims the time; without color there are no escapes", () => {
    const colored = prettyRecord(rec("error", "mcp.exit", { code: 1 }), true);
    expect(colored).toContain("\x1b[97;41mERR\x1b[0m");
    expect(colored).toContain(`\x1b[2m${localClock}\x1b[0m`);
    expect(prettyRecord(rec("error", "mcp.exit", { code: 1 }), false)).toBe(`${localClock} ERR mcp.exit      code=1`);
  });
});

test("the first shutdown signal reads as what happens now and how to stop at once", () => {
  const line = prettyRecord(
    {
      ts: "2026-12-06T07:00:00.000Z",
      level: "warn",
      event: "shutdown.draining",
      ...drainingRecord("SIGINT", 30_000, 1),
    },
    false,
  );
  expect(line).toContain("SIGINT: finishing the current step (up to 30s) — press Ctrl-C again to stop now");
  expect(drainingRecord("SIGTERM", 5_000, 0).hint).toBe("stopping — send SIGTERM again to stop now");
});
