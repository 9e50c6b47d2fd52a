/**
 * Resuming runs whose questions were answered at the approval desk — by whichever replica claims them. A
 * served run that suspends posts its questions to the desk and is saved; the desk tells every replica on the
 * store when a question is decided (`watch`), and each re-reads the run's questions (`get`): once every one
 * is decided, it resumes the run (`agent.resume`, whose compare-and-set claim lets exactly one replica win;
 * the others hear "already resumed" and let it be). The same check runs once the run is saved (a decision
 * may have come before the save did) and, when the desk is attached, over every saved waiting run (what was
 * decided while no replica listened, or while this process was down after a `kill -9`).
 *
 * A run being resumed by another process is watched: when its claim's lease lapses unrenewed (that process
 * died mid-resume), this replica takes it over — found when the decision is heard, or by the scan at start —
 * with the decisions the claim recorded; the journal in the claim says which approved calls were made
 * (resume-lease.ts), and of replicas racing for it one wins (compare-and-set).
 *
 * A run resumed here goes to whoever still waits on it in this process (a served caller still connected:
 * it gets the final result); with nobody waiting, to the run history through `record`. So that a served
 * caller gets its result where it waits, a served MCP run is claimed at once by the replica that saved it
 * (where its caller waits) and by any other only after {@link CALLER_GRACE_MS}, if still waiting then (the
 * saver died, or missed the decision): the choice of claimer is a preference, exactly-once is the claim's.
 */
import { type CancelTimer, setLongTimeout } from "../../_internal/timer.ts";
import type { Logger } from "../../log.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalDecision } from "../../loop/approvals/approval-types.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import { type ApprovalDecisions, type ResumeOptions, isResumedElsewhere } from "./resume-run.ts";
import type { AgentWaiting } from "./run-waiting.ts";
import type { WaitingRun } from "./waiting-runs.ts";

/** Where a run resumed with nobody waiting on it here is recorded (the served run history). */
export interface OrphanRecord {
  onEvent(event: RunEvent): void;
  finished(result: RunResult): void;
  failed(error: unknown): void;
}

/** What the resumer needs of the agent. */
export interface DeskResumerParts {
  desk: ApprovalDesk;
  waiting: AgentWaiting;
  resume: (runId: string, decisions: ApprovalDecisions, options?: ResumeOptions) => Promise<RunResult>;
  /** A record in the run history for a run resumed here that no caller here waits on. */
  record?: (run: WaitingRun) => OrphanRecord | undefined;
  logger: Logger;
}

const OPERATOR = { operator: true } as const;

/** How long a replica leaves a served MCP run to the replica its caller waits on before claiming it itself. */
export const CALLER_GRACE_MS = 3_000;

/** How long after a claim's lease ends it is looked at again (a timer never fires early; clocks round). */
const LEASE_MARGIN_MS = 50;

/** See the module header. */
export class DeskResumer {
  private readonly checking = new Set<string>();
  /** Runs left to the replica their caller waits on, checked again after the grace (the timers), then claimable here. */
  private readonly timers = new Map<string, CancelTimer>();
  private readonly deferred = new Set<string>();
  /** Runs asked about again while being checked: checked once more after (a decision may have landed meanwhile). */
  private readonly again = new Set<string>();
  /** Runs being resumed elsewhere, checked again when their claim's lease would lapse. */
  private readonly leases = new Map<string, CancelTimer>();
  private stop: (() => void) | undefined;

  constructor(private readonly parts: DeskResumerParts) {}

  /** Listen to the desk and look over the runs already waiting. */
  start(): void {
    const { desk, waiting, logger } = this.parts;
    this.stop = desk.watch((id) => void this.onQuestion(id));
    void waiting.runs
      .waiting()
      .then((runs) => Promise.all(runs.map((r) => this.check(r.runId))))
      .catch((e) => logger.warn("approvals.resume-scan-failed", { error: String(e) }));
    void waiting.runs
      .resuming()
      .then((runs) => {
        for (const r of runs) if (r.leaseUntil !== undefined) this.watchLease(r.runId, r.leaseUntil);
      })
      .catch((e) => logger.warn("approvals.resume-scan-failed", { error: String(e) }));
  }

  /** Stop listening. */
  close(): void {
    this.stop?.();
    this.stop = undefined;
    for (const cancel of [...this.timers.values(), ...this.leases.values()]) cancel();
    this.timers.clear();
    this.leases.clear();
  }

  /** Check `runId` again just after `leaseUntil` (epoch ms), when the claim on it lapses unless renewed. */
  private watchLease(runId: string, leaseUntil: number): void {
    if (!this.stop) return;
    this.leases.get(runId)?.();
    const cancel = setLongTimeout(
      () => {
        if (this.leases.get(runId) === cancel) this.leases.delete(runId);
        void this.check(runId);
      },
      Math.max(0, leaseUntil - Date.now()) + LEASE_MARGIN_MS,
    );
    this.leases.set(runId, cancel);
  }

  /** Check `runId` again once the grace its caller's replica has is over, then claim it if it still waits. */
  private defer(runId: string): void {
    if (this.timers.has(runId)) return;
    this.timers.set(
      runId,
      setLongTimeout(() => {
        this.timers.delete(runId);
        this.deferred.add(runId);
        void this.check(runId).finally(() => this.deferred.delete(runId));
      }, CALLER_GRACE_MS),
    );
  }

  private async onQuestion(id: string): Promise<void> {
    try {
      const q = await this.parts.desk.get(id, OPERATOR);
      if (q?.state === "decided") await this.check(q.request.runId);
    } catch (e) {
      this.parts.logger.warn("approvals.resume-failed", { requestId: id, error: String(e) });
    }
  }

  /** Resume `runId` if it waits and every question of it is decided (see the module header). */
  async check(runId: string): Promise<void> {
    if (this.checking.has(runId)) {
      this.again.add(runId);
      return;
    }
    this.checking.add(runId);
    try {
      await this.tryResume(runId);
    } finally {
      this.checking.delete(runId);
      if (this.again.delete(runId)) await this.check(runId);
    }
  }

  private async tryResume(runId: string): Promise<void> {
    const { waiting, resume, logger } = this.parts;
    const held = await waiting.runs.get(runId);
    if (!held) return;
    const doc = held.document;
    const takeover = waiting.runs.lapsed(doc);
    if (doc.state !== "waiting" && !takeover) {
      // Being resumed: looked at again when its claim would lapse (its process may die meanwhile).
      if (doc.state === "resuming" && doc.leaseUntil !== undefined) this.watchLease(runId, doc.leaseUntil);
      // Claimed by another replica (not this one, whose own resume tells its followers): a caller here learns where.
      const by = doc.claimedBy;
      if (by !== waiting.replica) waiting.resumedElsewhere(runId, by);
      return;
    }
    // A takeover goes on with the decisions its claim recorded; a waiting run, once every question is decided.
    const decisions = takeover ? new Map(Object.entries(doc.decisions ?? {})) : await this.decided(doc.run);
    if (!decisions) return;
    const saved = doc.run;
    // A served MCP caller or an A2A task follows its run where it was saved: that replica first, unless one follows it here.
    const toSaver = !takeover && (saved.origin.kind === "mcp" || saved.origin.kind === "a2a") && !waiting.follower(runId);
    if (toSaver && saved.savedBy !== undefined && saved.savedBy !== waiting.replica && !this.deferred.has(runId)) {
      this.defer(runId);
      return;
    }
    const follower = waiting.follower(runId);
    const orphan = follower ? undefined : this.parts.record?.(saved);
    try {
      const result = await resume(runId, decisions, { onEvent: follower?.onEvent ?? orphan?.onEvent });
      orphan?.finished(result);
      logger.info("approvals.run-resumed", {
        runId,
        status: result.status,
        recorded: orphan !== undefined,
        ...(takeover ? { takenOver: true } : {}),
      });
    } catch (e) {
      if (isResumedElsewhere(e)) {
        // Another replica claimed it first: it runs there, once.
        const now = await waiting.runs.get(runId);
        if (now?.document.state === "resuming" && now.document.leaseUntil !== undefined) this.watchLease(runId, now.document.leaseUntil);
        waiting.resumedElsewhere(runId, now?.document.claimedBy);
        return;
      }
      orphan?.failed(e);
      logger.warn("approvals.resume-failed", { runId, error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** The decision on each question `run` waits on, or undefined while one is undecided. */
  private async decided(run: WaitingRun): Promise<Map<string, ApprovalDecision> | undefined> {
    const decisions = new Map<string, ApprovalDecision>();
    for (const { request } of run.suspension.pending) {
      const q = await this.parts.desk.get(request.id, OPERATOR);
      if (q?.state !== "decided" || !q.decision) return undefined;
      decisions.set(request.id, q.decision);
    }
    return decisions;
  }
}
