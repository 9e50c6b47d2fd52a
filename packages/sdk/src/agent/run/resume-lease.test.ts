/**
 * The resume lease on a real directory store: renewed while held (its end moves on, wait for it, no sleep),
 * and lost to a takeover — the next write finds the document changed, the holder is told, and a call it was
 * about to make is refused (not made) rather than made alongside the new holder's.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import type { ToolSet } from "../../loop/tools.ts";
import { journaledTools, ResumeLease } from "./resume-lease.ts";
import { type WaitingRun, WaitingRuns } from "./waiting-runs.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function runs(now: () => number = Date.now): WaitingRuns {
  const dir = mkdtempSync(join(tmpdir(), "agentd-lease-"));
  const store = new DirectoryBackend(dir);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  return new WaitingRuns(async () => store, now);
}

const saved = (runId: string): WaitingRun => ({
  runId,
  origin: { kind: "direct" },
  input: "clean up",
  createdAt: new Date().toISOString(),
  suspension: {
    messages: [],
    results: [],
    pending: [
      {
        request: { id: "apr-1", toolCallId: "call-1" } as never,
        call: { toolCallId: "call-1", name: "fs__delete_file", input: { path: "/a" } },
      },
    ],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    turns: 1,
    toolCalls: 1,
    elapsedMs: 0,
    allowedForRun: [],
  },
});

describe("the resume lease", () => {
  test("renewed while held: the claim's end moves on", async () => {
    const store = runs();
    await store.save(saved("run-r"));
    const claim = await store.claim("run-r", "me", {}, 1_000);
    if (!claim.ok) throw new Error("the claim must win");
    const lease = new ResumeLease(store, claim, { leaseMs: 1_000, renewMs: 20 }, () => {});
    lease.start();
    cleanups.push(() => lease.stop());
    const first = claim.document.leaseUntil!;
    let until = first;
    while (until === first) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      until = (await store.get("run-r"))!.document.leaseUntil!;
    }
    expect(until).toBeGreaterThan(first);
    expect(lease.lost).toBeUndefined();
  });

  test("taken over: the holder is told, and the call it was about to make is not made", async () => {
    let now = Date.now();
    const store = runs(() => now);
    await store.save(saved("run-t"));
    const claim = await store.claim("run-t", "me", {}, 1_000);
    if (!claim.ok) throw new Error("the claim must win");
    const lost: string[] = [];
    const lease = new ResumeLease(
      store,
      claim,
      { leaseMs: 1_000, renewMs: 60_000 },
      (r) => lost.push(r),
      () => now,
    );
    now += 1_001;
    const other = await store.claim("run-t", "other", {}, 1_000);
    expect(other).toMatchObject({ ok: true, takenOverFrom: "me" });
    const made: string[] = [];
    const tools: ToolSet = {
      list: async () => [],
      call: async (name) => (made.push(name), { text: "done", isError: false }),
    };
    const guarded = journaledTools(tools, lease, claim.run.suspension.pending, claim);
    const refused = await guarded
      .call("fs/delete_file", { path: "/a" }, { runId: "run-t", toolCallId: "call-1", signal: new AbortController().signal })
      .catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect(made).toEqual([]);
    expect(lost).toEqual([expect.stringContaining("was taken over by another process")]);
  });
});
