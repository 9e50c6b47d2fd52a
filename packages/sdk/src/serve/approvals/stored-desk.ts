/**
 * The approval desk of an agent, over a versioned document store: the configured `durability.store` (a
 * directory or Redis behind an MCP store, so every replica of a fleet lists the same questions and any of
 * them may take a decision) or the local state directory. Each question is one document written by
 * compare-and-set, so a question is decided once: a second decision — from another channel, another
 * replica — finds it decided and is refused, naming who decided it and how.
 *
 * Changes are heard in this process at once and from every process sharing the store: on a local
 * directory the store watches the questions' files (`watchKeys`: `fs.watch` and a periodic re-list); on a
 * store server that can watch a key, each change rings one bell document (`approval-bell`); a ring makes
 * each subscriber re-list the questions and hear every one whose version moved since its last look (the
 * bell holds only the last id: two quick changes must not hide one).
 *
 * Deadlines: a question posted with a timeout has an `expiresAt`; when it passes, `onTimeout` decides it
 * (`by: "timeout"`). Every desk arms a timer for each pending question it knows of — those it posts, those
 * it finds when it starts (and on each listing), those it hears another process post — so a question whose
 * process died is decided on time by whichever desk is up; the decision is a compare-and-set, so of the
 * timers firing on several replicas the first wins and the others find it decided. Questions that expired
 * while no desk ran are decided by the sweep at start and on each listing. Retention: a decided question is kept
 * `retentionMs` (default 24 hours) after its decision — long enough for a run suspended across a restart
 * to read its answer — then removed by the sweep; listings show the decided ones of the last hour.
 */
import { setLongTimeout, type CancelTimer } from "../../_internal/timer.ts";
import type { ApprovalDesk, ApprovalViewer, PendingApproval, RecordedDecision } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalChannel, ApprovalDecision, ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import { AgentdError } from "../../wire/errors.ts";
import {
  alreadyDecided,
  APPROVAL_BELL,
  APPROVAL_PREFIX,
  type ApprovalDocument,
  type ApprovalStore,
  approvalKey,
  checkMayDecide,
  deciderName,
  type Deciders,
  mayView,
  noSuchApproval,
  parseApproval,
} from "./approval-records.ts";
import { waitForDecision } from "./wait-for-decision.ts";

/** Options of {@link StoredApprovalDesk}. */
export interface StoredDeskOptions {
  /** How long a question waits when its run names no timeout (the config's `approvals.timeout`; default: no deadline). */
  timeoutMs?: number;
  /** The decision when a question expires (default deny). */
  onTimeout?: "deny" | "approve";
  /** How long a decided question is kept (default 24 hours). */
  retentionMs?: number;
  /** Called when the desk closes (the store connection it was given to release). */
  onClose?: () => Promise<void>;
  now?: () => number;
}

const HOUR = 3_600_000;
const DEFAULT_RETENTION_MS = 24 * HOUR;

/** See the module header. */
export class StoredApprovalDesk implements ApprovalDesk {
  private readonly listeners = new Set<(id: string) => void>();
  private readonly timers = new Map<string, CancelTimer>();
  private readonly now: () => number;
  private bell: Promise<(() => Promise<void>) | undefined> | undefined;
  private swept: Promise<void> | undefined;
  /** The questions' versions at the last bell (a store that rings one): what a ring is compared with. */
  private versions = new Map<string, number>();
  private bellRead: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly store: () => Promise<ApprovalStore>,
    private readonly options: StoredDeskOptions = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Decide what expired while no process watched it, and remove what is past retention (once per desk, then on each listing). */
  start(): Promise<void> {
    return (this.swept ??= this.sweep().then(() => {}));
  }

  async list(viewer: ApprovalViewer): Promise<PendingApproval[]> {
    const docs = await this.sweep();
    const recent = this.now() - HOUR;
    const seen = docs.map((d) => d.approval).filter((_a, i) => mayView(docs[i] as ApprovalDocument, viewer));
    const pending = seen.filter((a) => a.state === "pending").sort(byRequested);
    const decided = seen.filter((a) => a.state === "decided" && Date.parse(a.decision?.at ?? "") >= recent).sort(byRequested);
    return [...pending, ...decided];
  }

  async get(id: string, viewer: ApprovalViewer): Promise<PendingApproval | undefined> {
    const found = await this.read(id);
    return found && mayView(found.doc, viewer) ? found.doc.approval : undefined;
  }

  async decide(id: string, decision: ApprovalDecision, viewer: ApprovalViewer): Promise<PendingApproval> {
    checkDecision(decision);
    const found = await this.read(id);
    if (!found || !mayView(found.doc, viewer)) throw noSuchApproval(id);
    checkMayDecide(found.doc, viewer);
    const { request } = found.doc.approval;
    if (decision.digest !== undefined && decision.digest !== request.digest)
      throw new AgentdError(
        "E_USAGE",
        `approval ${id}: the decision names digest ${decision.digest}, but the call's arguments have ${request.digest} (a decision answers only the call it was given for)`,
      );
    const recorded: RecordedDecision = {
      decision: decision.decision,
      ...(decision.reason ? { reason: decision.reason } : {}),
      digest: request.digest,
      by: deciderName(viewer),
      at: new Date(this.now()).toISOString(),
    };
    const done = await this.settle(id, recorded, found);
    if (!done.won) throw alreadyDecided(done.doc);
    return done.doc.approval;
  }

  async post(request: ApprovalRequest, run: Parameters<ApprovalDesk["post"]>[1]): Promise<PendingApproval> {
    return this.postAs(request, run, run.askCaller || request.rule.rule?.decidedBy === "owner" ? "owner" : "operator");
  }

  watch(listener: (id: string) => void): () => void {
    this.listeners.add(listener);
    void this.hearOthers();
    return () => this.listeners.delete(listener);
  }

  channelFor(run: Parameters<ApprovalDesk["channelFor"]>[0], options: { timeoutMs?: number } = {}): ApprovalChannel {
    const { askCaller, ...who } = run;
    return {
      ask: async (request, signal) => {
        const deciders: Deciders = askCaller || request.rule.rule?.decidedBy === "owner" ? "owner" : "operator";
        // Subscribed to other replicas' changes before the wait's first look: a decision taken elsewhere at once is seen.
        await this.hearing();
        const posted = await this.postAs(request, { ...who, timeoutMs: options.timeoutMs }, deciders);
        return waitForDecision(this, posted, signal, {
          askCaller,
          viewer: { principal: run.principal, operator: false },
          onAbort: (reason) => this.abandon(request.id, reason),
        });
      },
    };
  }

  /** Stop the timers and the bell's subscription; release the store. */
  async close(): Promise<void> {
    this.closed = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.listeners.clear();
    const off = await this.bell?.catch(() => undefined);
    await off?.().catch(() => {});
    await this.options.onClose?.().catch(() => {});
  }

  /** Record a question (again: the one already recorded under its id is returned) and arm its deadline. */
  private async postAs(
    request: ApprovalRequest,
    run: { principal?: string; origin: string; timeoutMs?: number },
    deciders: Deciders,
  ): Promise<PendingApproval> {
    const timeoutMs = run.timeoutMs ?? this.options.timeoutMs;
    const approval: PendingApproval = {
      request,
      ...(run.principal !== undefined ? { principal: run.principal } : {}),
      origin: run.origin,
      ...(timeoutMs !== undefined && Number.isFinite(timeoutMs) ? { expiresAt: new Date(this.now() + timeoutMs).toISOString() } : {}),
      state: "pending",
    };
    const doc: ApprovalDocument = { format: "agentd.approval", version: 1, approval, deciders };
    const store = await this.store();
    const key = approvalKey(request.id);
    const r = await store.compareAndSet(key, 0, doc);
    const kept = r.ok ? doc : (parseApproval(r.value) ?? doc);
    this.arm(kept.approval);
    if (r.ok) await this.changed(request.id);
    return kept.approval;
  }

  /** The stored question and its version, or undefined. */
  async read(id: string): Promise<{ doc: ApprovalDocument; version: number } | undefined> {
    const stored = await (await this.store()).get(approvalKey(id));
    const doc = stored && parseApproval(stored.value);
    return stored && doc ? { doc, version: stored.version } : undefined;
  }

  /** Decide a pending question by compare-and-set; `won` false when another decision was recorded first. */
  async settle(
    id: string,
    decision: RecordedDecision,
    found?: { doc: ApprovalDocument; version: number },
  ): Promise<{ won: boolean; doc: ApprovalDocument }> {
    const store = await this.store();
    for (let current = found ?? (await this.read(id)); current; current = await this.read(id)) {
      if (current.doc.approval.state === "decided") return { won: false, doc: current.doc };
      const doc: ApprovalDocument = { ...current.doc, approval: { ...current.doc.approval, state: "decided", decision } };
      const r = await store.compareAndSet(approvalKey(id), current.version, doc);
      if (r.ok) {
        this.timers.get(id)?.();
        this.timers.delete(id);
        await this.changed(id);
        return { won: true, doc };
      }
    }
    throw noSuchApproval(id);
  }

  /** The run stopped waiting: an expired question is decided by the timeout, any other by the run's end. */
  private async abandon(id: string, reason: unknown): Promise<void> {
    const found = await this.read(id).catch(() => undefined);
    if (found?.doc.approval.state !== "pending") return;
    const timedOut = (reason instanceof Error && reason.message === "approval timeout") || this.expired(found.doc.approval);
    const at = new Date(this.now()).toISOString();
    const decision: RecordedDecision = timedOut
      ? this.timeoutDecision()
      : { decision: "deny", by: "run-ended", at, reason: "the run ended before a decision" };
    await this.settle(id, decision, found).catch(() => {});
  }

  private timeoutDecision(): RecordedDecision {
    return {
      decision: this.options.onTimeout ?? "deny",
      by: "timeout",
      at: new Date(this.now()).toISOString(),
      reason: "no decision in time",
    };
  }

  private expired(a: PendingApproval): boolean {
    return a.expiresAt !== undefined && Date.parse(a.expiresAt) <= this.now();
  }

  /** This desk decides the question by the timeout when it expires (unless decided before, here or elsewhere). */
  private arm(a: PendingApproval): void {
    const id = a.request.id;
    if (this.closed || a.state !== "pending" || a.expiresAt === undefined || this.timers.has(id)) return;
    const cancel = setLongTimeout(() => {
      this.timers.delete(id);
      void this.settle(id, this.timeoutDecision()).catch(() => {});
    }, Date.parse(a.expiresAt) - this.now());
    this.timers.set(id, cancel);
  }

  /** Every question, with expired pending ones decided and those past retention removed. */
  private async sweep(): Promise<ApprovalDocument[]> {
    const store = await this.store();
    const retention = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    const out: ApprovalDocument[] = [];
    for (const listed of await store.list(APPROVAL_PREFIX)) {
      const stored = await store.get(listed.key);
      const doc = stored && parseApproval(stored.value);
      if (!stored || !doc) continue;
      const a = doc.approval;
      if (a.state === "decided" && Date.parse(a.decision?.at ?? "") + retention <= this.now()) {
        await store.delete(listed.key, stored.version);
        continue;
      }
      if (a.state === "pending" && this.expired(a)) {
        const settled = await this.settle(a.request.id, this.timeoutDecision(), { doc, version: stored.version }).catch(() => undefined);
        if (settled) out.push(settled.doc);
        continue;
      }
      // Posted by a process that may be gone: decided on time here too (the first decision wins).
      this.arm(a);
      out.push(doc);
    }
    return out;
  }

  /** Tell this process's listeners, and ring the bell for other processes when the store can. */
  private async changed(id: string): Promise<void> {
    for (const l of [...this.listeners]) l(id);
    const store = await this.store();
    if (store.put && store.watch) await store.put(APPROVAL_BELL, { id, at: this.now() }).catch(() => {});
  }

  /**
   * Subscribe once to other processes' changes: the questions' keys where the store watches them (a local
   * directory), else the bell (a store that can do neither: this process's changes only).
   */
  private hearOthers(): Promise<unknown> {
    return (this.bell ??= this.store()
      .then(async (store) => {
        if (this.closed) return undefined;
        if (store.watchKeys) return store.watchKeys(APPROVAL_PREFIX, (key) => this.heard(key.slice(APPROVAL_PREFIX.length)));
        if (!store.watch) return undefined;
        // Two changes in quick succession ring twice but the bell holds only the last id: each ring re-lists the
        // questions and tells of every one whose version moved since the last look, so no change is missed.
        // The first listing only notes the versions (what changed before it, a first look reads); rings queue behind it.
        const first = (this.bellRead = this.heardSince(store, true).catch(() => {}));
        const off = await store.watch(APPROVAL_BELL, () => {
          this.bellRead = this.bellRead.then(() => this.heardSince(store)).catch(() => {});
        });
        await first;
        return off;
      })
      .catch(() => {
        // The store could not be reached: the next look tries to subscribe again.
        this.bell = undefined;
        return undefined;
      }));
  }

  /** Tell of every question whose version differs from the last listing (`quiet`: only note the versions). */
  private async heardSince(store: ApprovalStore, quiet = false): Promise<void> {
    const now = new Map<string, number>();
    for (const { key, version } of await store.list(APPROVAL_PREFIX)) now.set(key.slice(APPROVAL_PREFIX.length), version);
    const moved = [...now].filter(([id, v]) => this.versions.get(id) !== v).map(([id]) => id);
    const gone = [...this.versions.keys()].filter((id) => !now.has(id));
    this.versions = now;
    if (!quiet) for (const id of [...moved, ...gone]) this.heard(id);
  }

  /** Another process changed question `id`: tell the listeners, and arm its deadline if it waits (posted elsewhere). */
  private heard(id: string): void {
    for (const l of [...this.listeners]) l(id);
    if (id)
      void this.read(id)
        .then((found) => found && this.arm(found.doc.approval))
        .catch(() => {});
  }

  /** Resolves once changes of other processes are heard (for tests and a run about to wait). */
  hearing(): Promise<unknown> {
    return this.hearOthers();
  }
}

const byRequested = (a: PendingApproval, b: PendingApproval) =>
  a.request.requestedAt < b.request.requestedAt ? -1 : a.request.requestedAt > b.request.requestedAt ? 1 : 0;

function checkDecision(d: ApprovalDecision): void {
  const kind = (d as { decision?: unknown } | undefined)?.decision;
  if (kind !== "approve" && kind !== "deny" && kind !== "always")
    throw new AgentdError("E_USAGE", `a decision is "approve", "deny" or "always", not ${JSON.stringify(kind)}`);
}
