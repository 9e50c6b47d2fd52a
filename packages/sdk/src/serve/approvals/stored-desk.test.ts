/**
 * The approval desk over a real directory store: questions listed per viewer, decided once by
 * compare-and-set (a second decision names the first), bound to the call's digest, decided only by whom the
 * rule allows; a run's wait ends on a decision taken at another desk sharing the store (heard through the
 * bell, or on a local directory through its watched files); deadlines decide by the timeout — by the waiting
 * process's timer, by the timer of a desk that started or heard the question after the posting process died,
 * and by the sweep of a desk that starts later; decided questions are removed after their retention.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalDocuments } from "../../agent/conversations/local-documents.ts";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { ApprovalStore } from "./approval-records.ts";
import { StoredApprovalDesk } from "./stored-desk.ts";

const dirs: string[] = [];
const backends: DirectoryBackend[] = [];
afterEach(async () => {
  for (const b of backends.splice(0)) await b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One directory store, with key watches as a store server gives them. */
function store(): ApprovalStore {
  const dir = mkdtempSync(join(tmpdir(), "agentd-desk-"));
  dirs.push(dir);
  const b = new DirectoryBackend(dir);
  backends.push(b);
  return {
    get: (k) => b.get(k),
    compareAndSet: (k, v, x) => b.compareAndSet(k, v, x),
    delete: (k, v) => b.delete(k, v),
    list: (p) => b.list(p),
    put: (k, x) => b.put(k, x),
    watch: async (key, cb) => {
      const off = b.watch((k) => k === key && cb(k));
      return async () => off();
    },
  };
}

let n = 0;
function request(over: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: `apr-test-${++n}`,
    runId: "run-1",
    toolCallId: "call-1",
    name: "fs/delete_file",
    server: "fs",
    tool: "delete_file",
    arguments: { path: "/a" },
    digest: "d".repeat(64),
    rule: { source: "rules", index: 0, label: "approvals.rules[0]" },
    requestedAt: new Date().toISOString(),
    ...over,
  };
}

/** Resolves with the first id `desk` hears whose question is decided. */
function decidedAt(desk: StoredApprovalDesk, id: string): Promise<unknown> {
  return new Promise((resolve) => {
    const off = desk.watch((heard) => {
      if (heard !== id) return;
      void desk.get(id, OPS).then((q) => {
        if (q?.state === "decided") off(), resolve(q.decision);
      });
    });
  });
}

const OPS = { principal: "bearer:ops", operator: true };
const ALICE = { principal: "bearer:alice", operator: false };
const BOB = { principal: "bearer:bob", operator: false };
const codeOf = (e: unknown) => (AgentdError.isInstance(e) ? e.code : String(e));

describe("the stored approval desk", () => {
  test("lists per viewer; decides once; a second decision names who decided and how", async () => {
    const s = store();
    const desk = new StoredApprovalDesk(async () => s);
    const r = request();
    await desk.post(r, { principal: ALICE.principal, origin: "mcp" });
    expect((await desk.list(OPS)).map((a) => a.request.id)).toEqual([r.id]);
    expect((await desk.list(ALICE)).map((a) => a.state)).toEqual(["pending"]);
    expect(await desk.list(BOB)).toEqual([]);
    expect(await desk.get(r.id, BOB)).toBeUndefined();

    const decided = await desk.decide(r.id, { decision: "deny", reason: "not today" }, OPS);
    expect(decided.decision).toMatchObject({ decision: "deny", by: "bearer:ops", reason: "not today", digest: r.digest });
    const again = await desk.decide(r.id, { decision: "approve" }, OPS).catch((e: Error) => e);
    expect(codeOf(again)).toBe("E_USAGE");
    expect((again as Error).message).toContain("already decided: deny by bearer:ops");
    expect((await desk.get(r.id, ALICE))?.decision?.decision).toBe("deny");
    await desk.close();
  });

  test("who may decide: operators; the run's principal only where the rule says owner; nobody else", async () => {
    const s = store();
    const desk = new StoredApprovalDesk(async () => s);
    const held = request();
    await desk.post(held, { principal: ALICE.principal, origin: "mcp" });
    expect(codeOf(await desk.decide(held.id, { decision: "approve" }, ALICE).catch((e) => e))).toBe("E_UNAUTHORIZED");
    // Another principal does not even see it: no such approval.
    expect(codeOf(await desk.decide(held.id, { decision: "approve" }, BOB).catch((e) => e))).toBe("E_USAGE");
    const own = request({ rule: { source: "rules", index: 1, label: "r1", rule: { decision: "ask", decidedBy: "owner" } } });
    await desk.post(own, { principal: ALICE.principal, origin: "mcp" });
    expect((await desk.decide(own.id, { decision: "approve" }, ALICE)).decision?.by).toBe("bearer:alice");
    expect(codeOf(await desk.decide("apr-nope", { decision: "approve" }, OPS).catch((e) => e))).toBe("E_USAGE");
    expect(codeOf(await desk.decide("../etc", { decision: "approve" }, OPS).catch((e) => e))).toBe("E_USAGE");
    await desk.close();
  });

  test("a decision naming another digest is refused; the question stays pending", async () => {
    const s = store();
    const desk = new StoredApprovalDesk(async () => s);
    const r = request();
    await desk.post(r, { origin: "trigger" });
    const e = await desk.decide(r.id, { decision: "approve", digest: "e".repeat(64) }, OPS).catch((x: Error) => x);
    expect((e as Error).message).toContain("names digest");
    expect((await desk.get(r.id, OPS))?.state).toBe("pending");
    await desk.close();
  });

  test("a run's wait ends on a decision taken at another desk on the same store", async () => {
    const s = store();
    const waiting = new StoredApprovalDesk(async () => s);
    const other = new StoredApprovalDesk(async () => s);
    await waiting.hearing();
    const r = request();
    const heard: string[] = [];
    other.watch((id) => heard.push(id));
    const answer = waiting.channelFor({ runId: r.runId, principal: ALICE.principal, origin: "mcp" }).ask(r, new AbortController().signal);
    let listed = await other.list(OPS);
    while (listed.length === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      listed = await other.list(OPS);
    }
    await other.decide(r.id, { decision: "always", reason: "fine" }, OPS);
    expect(await answer).toMatchObject({ decision: "always", by: "bearer:ops", reason: "fine" });
    expect(heard).toContain(r.id);
    await waiting.close();
    await other.close();
  });

  test("a timeout decides by onTimeout (the waiting process's timer), recorded by timeout", async () => {
    const s = store();
    const desk = new StoredApprovalDesk(async () => s, { timeoutMs: 50, onTimeout: "approve" });
    const r = request();
    const d = await desk.channelFor({ runId: r.runId, origin: "trigger" }).ask(r, new AbortController().signal);
    expect(d).toMatchObject({ decision: "approve", by: "timeout" });
    expect((await desk.get(r.id, OPS))?.decision?.by).toBe("timeout");
    await desk.close();
  });

  test("a desk that starts later decides what expired meanwhile, and removes what is past retention", async () => {
    const s = store();
    let now = Date.parse("2026-12-06T10:00:00Z");
    const first = new StoredApprovalDesk(async () => s, { timeoutMs: 60_000, now: () => now });
    const expiring = request();
    const old = request();
    await first.post(expiring, { origin: "trigger" });
    await first.post(old, { origin: "trigger" });
    await first.decide(old.id, { decision: "deny" }, OPS);
    await first.close(); // the process died: its timer is gone
    now += 2 * 60_000;
    const second = new StoredApprovalDesk(async () => s, { now: () => now, retentionMs: 60_000 });
    await second.start();
    expect((await second.get(expiring.id, OPS))?.decision).toMatchObject({ decision: "deny", by: "timeout" });
    expect(await second.get(old.id, OPS)).toBeUndefined();
    await second.close();
  });

  test("a run that ends while waiting leaves its question decided as ended, not pending", async () => {
    const s = store();
    const desk = new StoredApprovalDesk(async () => s);
    const r = request();
    const stop = new AbortController();
    const asked = desk.channelFor({ runId: r.runId, origin: "a2a" }).ask(r, stop.signal);
    while (!(await desk.get(r.id, OPS))) await new Promise((resolve) => setImmediate(resolve));
    stop.abort(new Error("cancelled"));
    expect(await asked.catch((e: Error) => e.message)).toBe("cancelled");
    expect((await desk.get(r.id, OPS))?.decision?.by).toBe("run-ended");
    await desk.close();
  });

  test("the posting process gone, a desk started before the deadline decides the question at it", async () => {
    const s = store();
    const posting = new StoredApprovalDesk(async () => s, { timeoutMs: 1_500 });
    const r = request();
    const posted = await posting.post(r, { origin: "trigger" });
    await posting.close(); // the process died: its timer is gone
    const next = new StoredApprovalDesk(async () => s);
    const decided = decidedAt(next, r.id);
    await next.start();
    expect(Date.now()).toBeLessThan(Date.parse(posted.expiresAt!));
    expect(await decided).toMatchObject({ decision: "deny", by: "timeout" });
    await next.close();
  });

  test("a question another process posts is armed where it is heard, and decided once at its deadline", async () => {
    const s = store();
    // The replicas of one agent share its config: its onTimeout decides, wherever the timer fires.
    const replicas = [0, 1].map(() => new StoredApprovalDesk(async () => s, { onTimeout: "approve" }));
    for (const d of replicas) await d.hearing();
    const heard = replicas.map((d) => new Promise<void>((resolve) => d.watch(() => resolve())));
    const posting = new StoredApprovalDesk(async () => s, { timeoutMs: 1_500, onTimeout: "approve" });
    const r = request();
    await posting.post(r, { origin: "trigger" });
    await Promise.all(heard);
    await posting.close();
    const decided = await Promise.all(replicas.map((d) => decidedAt(d, r.id)));
    expect(decided[0]).toMatchObject({ decision: "approve", by: "timeout" });
    expect(decided[1]).toEqual(decided[0]);
    for (const d of replicas) await d.close();
  });

  test("on a local directory, a decision taken by another process's desk is heard (the directory is watched)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-desk-local-"));
    dirs.push(dir);
    // Two LocalDocuments on one directory stand for two processes: neither tells the other anything.
    const here = new StoredApprovalDesk(async () => new LocalDocuments(dir));
    const there = new StoredApprovalDesk(async () => new LocalDocuments(dir));
    await here.hearing();
    const r = request();
    await here.post(r, { origin: "mcp" });
    const decided = decidedAt(here, r.id);
    await there.decide(r.id, { decision: "approve", reason: "ok" }, OPS);
    expect(await decided).toMatchObject({ decision: "approve", by: "bearer:ops" });
    await here.close();
    await there.close();
  });
});
