/** `agentd status` as text: spend in dollars only where prices are known, and the replica of each failure of a fleet. */
import { expect, test } from "bun:test";
import type { RunSummary } from "@agentd/sdk/serve";
import { renderStatus, type StatusSnapshot } from "./render-status.ts";

const usage = { inputTokens: 10, outputTokens: 2, totalTokens: 12 };
const snapshot = (over: Partial<StatusSnapshot["status"]>, failures: RunSummary[] = []): StatusSnapshot => ({
  url: "http://127.0.0.1:7777/mcp",
  status: {
    state: "idle",
    running: [],
    runsStarted: 1,
    runsSucceeded: 1,
    runsFailed: 0,
    usage,
    startedAt: new Date().toISOString(),
    ...over,
  },
  running: [],
  failures,
  at: new Date().toISOString(),
});
const failure = (runId: string, replica?: string): RunSummary => ({
  runId,
  status: "failed",
  instruction: "x",
  startedAt: new Date().toISOString(),
  turns: 1,
  toolCalls: 0,
  usage,
  error: { code: "E_X", message: "broke" },
  ...(replica ? { replica } : {}),
});

test("spend: dollars with prices, tokens only without", () => {
  expect(renderStatus(snapshot({ costUsd: 1.5 }))).toMatch(/^spend\s+\$1\.50$/m);
  expect(renderStatus(snapshot({ costUsd: 0.0012 }))).toMatch(/^spend\s+\$0\.0012$/m);
  expect(renderStatus(snapshot({}))).toMatch(/^spend\s+tokens only \(no model prices\)$/m);
});

test("spend before the first priced run ends: the configured prices, not 'no model prices'", () => {
  const before = renderStatus(snapshot({ prices: { inputPerMTokUsd: 3, outputPerMTokUsd: 15 } }));
  expect(before).toMatch(/^spend\s+\$0\.00 \(no priced run has ended yet; priced at \$3 in, \$15 out per million tokens\)$/m);
});

test("a fleet's failures name the replica that ran each; one replica's do not", () => {
  const fleet = renderStatus(snapshot({}, [failure("f-1", "replica-a"), failure("f-2", "replica-b")]));
  expect(fleet).toMatch(/^RUN\s+VIA\s+REPLICA\s+AGO/m);
  expect(fleet).toMatch(/^f-1\s+replica-a\s/m);
  const single = renderStatus(snapshot({}, [failure("f-3")]));
  expect(single).not.toContain("REPLICA");
});

test("a malicious server's state, run ids, codes and messages are shown with their control characters escaped", () => {
  const esc = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\r";
  const bad: RunSummary = { ...failure(`run${esc}`), instruction: `do${esc}`, error: { code: `E${esc}`, message: `boom${esc}` } };
  const text = renderStatus({
    ...snapshot({ state: `running${esc}` as never, triggers: [] }, [bad]),
    running: [{ ...bad, status: "running", via: `mcp${esc}` as never, principal: `bearer:x${esc}` }],
  });
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  expect(text).toContain("running\\u001b]0;pwned\\u0007\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\\u009b31m\\r (0 in flight)");
  expect(text).toMatch(/^run\\u001b\]0;pwned/m);
});

test("runs waiting for a decision: counted in the state line and listed with the tools they wait on; none, no section", () => {
  const waiting: RunSummary = { ...failure("w-1"), status: "waiting", trigger: "nightly", error: undefined, waitingOn: ["fs/delete_file"] };
  const text = renderStatus({ ...snapshot({ waiting: ["w-1"] }), waiting: [waiting] });
  expect(text).toMatch(/^state\s+idle \(0 in flight, 1 waiting for a decision\)$/m);
  expect(text).toContain("Waiting for a decision (agentd approvals list)\nRUN");
  expect(text).toMatch(/^w-1\s+trigger:nightly\s+\S+\s+fs\/delete_file\s+x$/m);
  expect(renderStatus(snapshot({ waiting: [] }))).not.toContain("Waiting for a decision");
});
