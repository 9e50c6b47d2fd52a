/**
 * The run-once protocol over a real store (the MCP store server on the directory backend): the first
 * replica runs and records its answer, a second one gets that answer without running; a failed run releases
 * its id so a retry runs it; a store that cannot be reached is `unavailable` with the secret-free reason;
 * without a store every claim is this replica's.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectStore } from "@agentd/test-support/connect-store";
import { nullLogger } from "../log.ts";
import { registerSecretValue } from "../secret-values.ts";
import type { RunResult } from "../loop/run-loop.ts";
import { DirectoryBackend } from "../store/directory-backend.ts";
import { AgentdError } from "../wire/errors.ts";
import { createServedRuns } from "../agent/from-config/served-runs-from-config.ts";
import { answeredElsewhere, claimServedRun, failureOf, recordSucceeded } from "./run-once.ts";
import { RunRegistry } from "./run-registry.ts";
import type { ServedRuns } from "./served-runs.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function twoReplicas() {
  const backend = new DirectoryBackend(mkdtempSync(join(tmpdir(), "agentd-run-once-")));
  cleanup.push(() => rmSync(backend.dir, { recursive: true, force: true }));
  cleanup.push(() => backend.close());
  const c = await connectStore(backend);
  cleanup.push(c.close);
  const replica = (holder: string) => {
    const served = createServedRuns({ store: async () => c.store, holder, logger: nullLogger });
    cleanup.push(() => served.close());
    return served;
  };
  return [replica("pod-a"), replica("pod-b")] as const;
}

const live = new AbortController().signal;
const result = (text: string): RunResult => ({
  runId: "r",
  stopReason: "final",
  text,
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  turns: 1,
  toolCalls: 0,
});

test("one replica runs it and records the answer; the other gets the answer without running", async () => {
  const [a, b] = await twoReplicas();
  const first = await claimServedRun(a, "local/order-17", live);
  expect(first.status).toBe("run");
  let runs = 0;
  if (first.status === "run") await first.run(async () => (runs++, result("shipped")));
  const second = await claimServedRun(b, "local/order-17", live);
  expect(second).toEqual({ status: "done", answer: { stopReason: "final", text: "shipped", output: undefined } });
  expect(runs).toBe(1);
});

test("a run that fails releases its id: the next claim runs it again", async () => {
  const [a, b] = await twoReplicas();
  const first = await claimServedRun(a, "local/flaky", live);
  if (first.status !== "run") throw new Error(`expected to run, got ${first.status}`);
  expect(await first.run(() => Promise.reject(new AgentdError("E_UPSTREAM", "model down"))).catch((e: unknown) => failureOf(e).code)).toBe(
    "E_UPSTREAM",
  );
  expect((await claimServedRun(b, "local/flaky", live)).status).toBe("run");
});

test("a store that cannot be reached: unavailable, with a reason free of secrets; no store: this replica runs it", async () => {
  registerSecretValue("s3cr3t-value-42");
  const broken: ServedRuns = { begin: () => Promise.reject(new Error("connect failed with token s3cr3t-value-42")) };
  const claim = await claimServedRun(broken, "local/x", live);
  expect(claim.status).toBe("unavailable");
  if (claim.status === "unavailable") {
    expect(claim.message).toStartWith("connect failed with token ");
    expect(claim.message).not.toContain("s3cr3t-value-42");
  }
  const alone = await claimServedRun(undefined, "local/x", live);
  expect(alone.status === "run" && (await alone.run(async () => result("ok"))).text).toBe("ok");
});

test("the run history records a run's answer, and another replica's answer as 'already done' with no turns", () => {
  const registry = new RunRegistry();
  registry.start("r1", "do it");
  recordSucceeded(registry, "r1", result("done"));
  expect(registry.get("r1")).toMatchObject({ status: "succeeded", result: { text: "done", stopReason: "final" }, turns: 1 });
  registry.start("r2", "again");
  recordSucceeded(registry, "r2", answeredElsewhere({ stopReason: "final", text: "from pod-a" }));
  expect(registry.get("r2")).toMatchObject({ status: "succeeded", result: { text: "from pod-a", stopReason: "already done" }, turns: 0 });
});
