import { describe, expect, test } from "bun:test";
import type { AgentStreamEvent } from "@agentd/sdk";
import {
  createStatusLine,
  formatElapsed,
  initialStatus,
  renderStatus,
  statusLineWanted,
  summarizeArgs,
  updateStatus,
} from "./status-line.ts";

const R = "run-1";
const fold = (events: Array<[AgentStreamEvent, number]>) => events.reduce((s, [e, at]) => updateStatus(s, e, at), initialStatus(0));
const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

describe("the status line's text", () => {
  test("the model thinking, then streaming with what it wrote, and how long", () => {
    const thinking = fold([[{ type: "model-start", runId: R, turn: 2, messages: 4 }, 1000]]);
    expect(renderStatus(thinking, 2500)).toMatch(/^. turn 2 · model thinking 1\.5s$/);
    const streaming = updateStatus(thinking, { type: "text-delta", runId: R, turn: 2, delta: "Hello, wor" }, 1200);
    expect(renderStatus(streaming, 1340)).toMatch(/^. turn 2 · model streaming \(10 chars\) 340ms$/);
    const reasoning = updateStatus(thinking, { type: "reasoning-delta", runId: R, turn: 2, delta: "hmm" }, 1100);
    expect(renderStatus(reasoning, 1100)).toContain("model reasoning (3 chars)");
  });

  test("each tool call in flight with its arguments summarised and its duration; the last one that ended", () => {
    const s = fold([
      [{ type: "model-start", runId: R, turn: 1, messages: 2 }, 0],
      [{ type: "model-end", runId: R, turn: 1, usage, finishReason: "tool-calls", toolCalls: 2 }, 100],
      [
        {
          type: "tool-call-start",
          runId: R,
          turn: 1,
          toolCallId: "a",
          name: "fs__read",
          qualifiedName: "fs/read",
          argumentsSize: 26,
          arguments: { path: "/data/inbox.md" },
        },
        100,
      ],
      [
        {
          type: "tool-call-start",
          runId: R,
          turn: 1,
          toolCallId: "b",
          name: "web__get",
          qualifiedName: "web/get",
          argumentsSize: 56,
          arguments: { url: "https://example.com/a/very/long/path/that/goes/on" },
        },
        200,
      ],
    ]);
    const line = renderStatus(s, 1300, 200);
    expect(line).toContain('fs/read {"path":"/data/inbox.md"} 1.2s');
    expect(line).toContain('web/get {"url":"https://example.com/a/very/long… 1.1s');
    const ended = updateStatus(
      s,
      {
        type: "tool-call-end",
        runId: R,
        turn: 1,
        toolCallId: "a",
        name: "fs__read",
        qualifiedName: "fs/read",
        isError: false,
        size: 10,
        durationMs: 1234,
        summary: "",
      },
      1334,
    );
    expect(renderStatus(ended, 1400, 200)).not.toContain("fs/read");
    const both = updateStatus(
      ended,
      {
        type: "tool-call-end",
        runId: R,
        turn: 1,
        toolCallId: "b",
        name: "web__get",
        qualifiedName: "web/get",
        isError: true,
        size: 10,
        durationMs: 2000,
        summary: "",
      },
      2200,
    );
    expect(renderStatus(both, 2300, 200)).toMatch(/web\/get \{"url":.*… failed in 2\.0s$/);
  });

  test("a server's tool name and a model's arguments carrying terminal escapes are shown escaped", () => {
    const esc = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b2J\u202e";
    const s = fold([
      [
        { type: "tool-call-start", runId: R, turn: 1, toolCallId: "a", name: `x${esc}`, argumentsSize: 2, arguments: { p: `\x7f${esc}` } },
        0,
      ],
    ]);
    const line = renderStatus(s, 10, 400);
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(line).toContain("x\\u001b]0;pwned\\u0007\\u001b]52;c;ZXZpbA==\\u0007\\u009b2J\\u202e");
  });

  test("never wider than the terminal (no wrap), and small pieces format", () => {
    const s = fold([
      [{ type: "tool-call-start", runId: R, turn: 1, toolCallId: "a", name: "x".repeat(300), argumentsSize: 2, arguments: {} }, 0],
    ]);
    expect(Array.from(renderStatus(s, 10, 60)).length).toBeLessThanOrEqual(59);
    expect(summarizeArgs({ a: 1 })).toBe('{"a":1}');
    expect(summarizeArgs({ long: "y".repeat(100) })).toHaveLength(40);
    expect(formatElapsed(59)).toBe("59ms");
    expect(formatElapsed(125_000)).toBe("2m05s");
  });

  test("shown only on a terminal, without NO_COLOR and without --quiet", () => {
    expect(statusLineWanted(false, {}, true)).toBe(true);
    expect(statusLineWanted(false, {}, false)).toBe(false);
    expect(statusLineWanted(true, {}, true)).toBe(false);
    expect(statusLineWanted(false, { NO_COLOR: "1" }, true)).toBe(false);
  });
});

describe("the status line on a terminal", () => {
  test("redraws in place, prints telemetry above itself, and erases itself when closed", () => {
    const written: string[] = [];
    let now = 0;
    const line = createStatusLine({ write: (s) => written.push(s), now: () => now, columns: () => 80, intervalMs: 60_000 });
    now = 50;
    line.event({ type: "model-start", runId: R, turn: 1, messages: 2 });
    expect(written.at(-1)).toMatch(/^\r\x1b\[2K. turn 1 · model thinking 0ms$/);
    line.printAbove("12:00:00 INF run.start …\n");
    expect(written.slice(-3)).toEqual(["\r\x1b[2K", "12:00:00 INF run.start …\n", expect.stringMatching(/^\r\x1b\[2K. turn 1/)]);
    line.close();
    expect(written.at(-1)).toBe("\r\x1b[2K");
    const count = written.length;
    line.event({ type: "model-start", runId: R, turn: 2, messages: 4 });
    expect(written.length).toBe(count);
  });

  test("steps aside while held (a question is asked) and comes back when released", () => {
    const written: string[] = [];
    const line = createStatusLine({ write: (s) => written.push(s), now: () => 0, columns: () => 80, intervalMs: 60_000 });
    const release = line.hold();
    expect(written.at(-1)).toBe("\r\x1b[2K");
    const count = written.length;
    line.event({ type: "model-start", runId: R, turn: 1, messages: 2 });
    line.printAbove("a line\n");
    // Nothing drawn while held; a line printed meanwhile is written as it is.
    expect(written.slice(count)).toEqual(["a line\n"]);
    release();
    release();
    expect(written.at(-1)).toMatch(/^\r\x1b\[2K. turn 1/);
    line.close();
  });
});
