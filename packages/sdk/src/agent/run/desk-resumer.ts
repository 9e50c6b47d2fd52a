/**
 * Resuming runs whose questions were answered at the approval desk — by whichever replica claims them. A
 * served run that suspends posts its questions to the desk and is saved; the desk tells every replica on the
 * store when a question is decided (`watch`), and each re-reads the run's questions (`get`): once every one
 * is decided, it resumes the run (`agent.resume`, whose compare-and-set claim lets exactly one replica win;
 * the others hear "already resumed" and let it be). The same check runs once the run is saved (a decision
 * may have come before the save did) and, when the desk is attached, over every saved waiting run (what was
 * decided while no replica listened, or while this process was down after a `kill -9`).
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
import { AgentdError } from "../../wire/errors.ts";
import type { ApprovalDecisions, ResumeOptions } from "./resume-run.ts";
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

/** See the module header. */
export class DeskResumer {
  private readonly checking = new Set<string>();
  /** Runs left to the replica their caller waits on, checked again after the grace (the timers), then claimable here. */
  private readonly timers = new Map<string, CancelTimer>();
  private readonly deferred = new Set<string>();
  /** Runs asked about again while being checked: checked once more after (a decision may have landed meanwhile). */
  private readonly again = new Set<string>();
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
  }

  /** Stop listening. */
  close(): void {
    this.stop?.();
    this.stop = undefined;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
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
    const { desk, waiting, resume, logger } = this.parts;
    const held = await waiting.runs.get(runId);
    if (!held) return;
    if (held.document.state !== "waiting") {
      // Claimed by another replica (not this one, whose own resume tells its followers): a caller here learns where.
      const by = held.document.claimedBy;
      if (by !== waiting.replica) waiting.resumedElsewhere(runId, by);
      return;
    }
    const decisions = new Map<string, ApprovalDecision>();
    for (const { request } of held.document.run.suspension.pending) {
      const q = await desk.get(request.id, OPERATOR);
      if (q?.state !== "decided" || !q.decision) return;
      decisions.set(request.id, q.decision);
    }
    const saved = held.document.run;
    // A served MCP caller or an A2A task follows its run where it was saved: that replica first, unless one follows it here.
    const toSaver = (saved.origin.kind === "mcp" || saved.origin.kind === "a2a") && !waiting.follower(runId);
    if (toSaver && saved.savedBy !== undefined && saved.savedBy !== waiting.replica && !this.deferred.has(runId)) {
      this.defer(runId);
      return;
    }
    const follower = waiting.follower(runId);
    const orphan = follower ? undefined : this.parts.record?.(held.document.run);
    try {
      const result = await resume(runId, decisions, { onEvent: follower?.onEvent ?? orphan?.onEvent });
      orphan?.finished(result);
      logger.info("approvals.run-resumed", { runId, status: result.status, recorded: orphan !== undefined });
    } catch (e) {
      if (AgentdError.isInstance(e) && e.code === "E_USAGE" && /already resumed/.test(e.message)) {
        // Another replica claimed it first: it runs there, once.
        const now = await waiting.runs.get(runId);
        waiting.resumedElsewhere(runId, now?.document.claimedBy);
        return;
      }
      orphan?.failed(e);
      logger.warn("approvals.resume-failed", { runId, error: e instanceof Error ? e.message : String(e) });
    }
  }
}
