/**
 * The resume lease on a real directory store: renewed while held (its end moves on: the renewal's write is heard),
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
    const dir = mkdtempSync(join(tmpdir(), "agentd-lease-"));
    const backend = new DirectoryBackend(dir);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => backend.close());
    // Each write of the run's document is heard, so the test waits for the renewal itself.
    let renewed!: (until: number) => void;
    const heard = new Promise<number>((resolve) => (renewed = resolve));
    const store = new WaitingRuns(async () => ({
      get: (k: string) => backend.get(k),
      delete: (k: string, v?: number) => backend.delete(k, v),
      list: (p: string) => backend.list(p),
      compareAndSet: async (k: string, v: number, value: unknown) => {
        const r = await backend.compareAndSet(k, v, value);
        const until = (value as { leaseUntil?: number }).leaseUntil;
        if (r.ok && v > 1 && until !== undefined) renewed(until);
        return r;
      },
    }));
    await store.save(saved("run-r"));
    const claim = await store.claim("run-r", "me", {}, 1_000);
    if (!claim.ok) throw new Error("the claim must win");
    const lease = new ResumeLease(store, claim, { leaseMs: 1_000, renewMs: 20 }, () => {});
    lease.start();
    cleanups.push(() => lease.stop());
    expect(await heard).toBeGreaterThan(claim.document.leaseUntil!);
    expect((await store.get("run-r"))!.document.leaseUntil).toBeGreaterThan(claim.document.leaseUntil!);
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
