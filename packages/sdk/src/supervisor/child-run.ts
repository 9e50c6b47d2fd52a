/**
 * One subagent handle's run, from its first attempt to its end: start a child within the limits left,
 * count its progress against them, settle the handle with its answer or its error, and after a crash
 * restart it (bounded, with backoff) from the retained payload — unless it was cancelled or a limit
 * tripped meanwhile. The supervisor makes one per handle; everything the run keeps is a field here.
 */
import { setLongTimeout } from "../_internal/timer.ts";
import type { Logger } from "../log.ts";
import type { RunLimits } from "../loop/budget.ts";
import { addUsage, emptyUsage, type Usage } from "../model/language-model.ts";
import { type AttemptEnd, ChildAttempt, type ChildCommand } from "./child-attempt.ts";
import type { StartParams } from "./control-protocol.ts";
import type { HandleRecord, HandleTable, SubagentFailure } from "./handle-table.ts";
import { type BackoffOptions, deadlineTrip, type LimitTrip, remainingLimits, restartDelay, tokensOf, tokenTrip } from "./restart-policy.ts";

/** How long past its deadline a child may run before the parent stops it (its own loop trips first). */
const DEADLINE_SLACK_MS = 2_000;

/** What the supervisor and a run share about a live handle: its attempt, and why it must stop. */
export interface Live {
  attempt?: ChildAttempt;
  cancel?: string;
  trip?: LimitTrip;
  wake?: () => void;
  driven: Promise<void>;
}

/** Usage, turns and tool calls spent so far, across attempts. */
export interface Spent {
  usage: Usage;
  turns: number;
  toolCalls: number;
}

/** What a run needs from its supervisor. */
export interface ChildRunHost {
  readonly table: HandleTable;
  readonly logger: Logger;
  readonly command: ChildCommand;
  readonly graceMs: number;
  readonly maxRestarts: number;
  readonly backoff: BackoffOptions | undefined;
  startParams(id: string, payload: HandleRecord["payload"], attempt: number, limits: RunLimits): StartParams;
  /** Keep a process until it exits. */
  track(child: ChildAttempt): void;
}

/** The run of one handle across its attempts. */
export class ChildRun {
  private used: Spent;
  private readonly payload: HandleRecord["payload"];

  constructor(
    private readonly host: ChildRunHost,
    private readonly id: string,
    record: HandleRecord,
    private readonly live: Live,
    spent?: Spent,
  ) {
    this.payload = record.payload;
    this.used = spent ?? { usage: emptyUsage(), turns: 0, toolCalls: 0 };
  }

  /** Run attempts until the child answers, fails, is cancelled, or crashes past the restart bound. */
  async run(): Promise<void> {
    const cancelDeadline = this.armDeadline();
    try {
      for (let attempt = 1; ; attempt++) {
        if (this.stopped()) return;
        const left = remainingLimits(this.payload, this.used);
        if ("trip" in left) return this.fail(limitExceeded(left.trip));
        const { child, end } = await this.attempt(attempt, left.limits);
        if (end.kind === "result") return this.complete(end, attempt);
        if (end.kind === "error") return this.failWithError(end);
        if (!(await this.restartAfterCrash(child, end.reason, attempt))) return;
      }
    } catch (e) {
      // Something of ours broke (the child could not even be spawned): a failure, never an unhandled rejection.
      this.fail({
        reason: "failed",
        code: "E_SUPERVISOR",
        message: `the supervisor could not run the subagent: ${e instanceof Error ? e.message : String(e)}`,
      });
    } finally {
      cancelDeadline?.();
    }
  }

  /** Stop the child past its deadline (with slack: its own loop trips first). */
  private armDeadline(): (() => void) | undefined {
    const { deadlineAt } = this.payload;
    if (deadlineAt === undefined) return undefined;
    // setLongTimeout: a deadline weeks away ("30d") must not overflow setTimeout and trip at once.
    return setLongTimeout(() => this.trip(deadlineTrip()), Math.max(0, deadlineAt - Date.now()) + DEADLINE_SLACK_MS);
  }

  /** A limit tripped: stop the attempt (once; a cancel or an earlier trip wins). */
  private trip(t: LimitTrip): void {
    const { live } = this;
    if (live.trip || live.cancel) return;
    live.trip = t;
    live.wake?.();
    void live.attempt?.stop(t.message, this.host.graceMs);
  }

  /** Start attempt number `attempt` within `limits`, its progress counted against the payload's token limit; its end. */
  private async attempt(attempt: number, limits: RunLimits): Promise<{ child: ChildAttempt; end: AttemptEnd }> {
    const { host, id, payload, live } = this;
    host.table.update(id, { attempts: attempt, statusMessage: attempt === 1 ? "running" : `running (restart ${attempt - 1})` });
    const before = this.used;
    const child = new ChildAttempt(
      host.command,
      host.startParams(id, payload, attempt, limits),
      (p) => {
        const usage = addUsage(before.usage, p.usage);
        host.table.update(id, { usage, turns: before.turns + p.turns, toolCalls: before.toolCalls + p.toolCalls });
        if (payload.limits.maxTokens !== undefined && tokensOf(usage) > payload.limits.maxTokens)
          this.trip(tokenTrip(tokensOf(usage), payload.limits.maxTokens));
      },
      host.logger,
    );
    live.attempt = child;
    host.track(child);
    // A cancel or trip that arrived while the process was being started.
    if (live.cancel || live.trip) void child.stop(live.cancel ?? live.trip?.message ?? "stopped", host.graceMs);
    const end = await child.ended;
    this.used = accumulate(before, end, child.lastProgress);
    return { child, end };
  }

  /** The child answered: the handle completes with its answer. */
  private complete(end: Extract<AttemptEnd, { kind: "result" }>, attempt: number): void {
    const { text, output, stopReason } = end.result;
    this.host.table.complete(this.id, { text, output, stopReason }, this.used);
    this.host.logger.info("subagent.end", { id: this.id, status: "completed", usage: this.used.usage, attempts: attempt });
  }

  /** The child ended with an error: a limit (its own budget, or our trip), a cancel, or a plain failure. */
  private failWithError(end: Extract<AttemptEnd, { kind: "error" }>): void {
    const { live } = this;
    const budget = end.data.code.startsWith("E_BUDGET_");
    if (live.trip || budget)
      return this.fail({
        reason: "limit-exceeded",
        code: budget ? end.data.code : (live.trip as LimitTrip).code,
        message: end.message,
        stopReason: (end.data.stopReason ?? live.trip?.stopReason) || undefined,
      });
    if (live.cancel) return this.fail({ reason: "cancelled", code: "E_ABORTED", message: live.cancel });
    this.fail({ reason: "failed", code: end.data.code, message: end.message, stopReason: end.data.stopReason || undefined });
  }

  /**
   * The child crashed: once its process is gone, restart after the backoff delay (a cancel or trip wakes
   * the wait) — or fail the handle past the restart bound. Whether to run another attempt.
   */
  private async restartAfterCrash(child: ChildAttempt, reason: string, attempt: number): Promise<boolean> {
    const { host, id, live } = this;
    await child.exited;
    if (this.stopped()) return false;
    host.logger.warn("subagent.crash", { id, attempt, reason });
    if (attempt > host.maxRestarts) {
      this.fail({
        reason: "crashed",
        code: "E_SUPERVISOR",
        message: `the subagent crashed ${attempt} time(s) (${host.maxRestarts} restart(s) allowed); last: ${reason}`,
      });
      return false;
    }
    const delayMs = restartDelay(attempt, host.backoff);
    host.logger.info("subagent.restart", { id, attempt: attempt + 1, delayMs, runId: this.payload.runId });
    host.table.update(id, { statusMessage: `crashed (${reason}); restarting in ${delayMs} ms` });
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, delayMs);
      live.wake = () => (clearTimeout(t), resolve());
    });
    live.wake = undefined;
    return true;
  }

  /** Whether the handle was cancelled or a limit tripped; if so it is failed accordingly. */
  private stopped(): boolean {
    const { live } = this;
    if (live.cancel) this.fail({ reason: "cancelled", code: "E_ABORTED", message: live.cancel });
    else if (live.trip) this.fail(limitExceeded(live.trip));
    else return false;
    return true;
  }

  /** Fail the handle with what it spent, and log its end. */
  private fail(f: SubagentFailure): void {
    this.host.table.fail(this.id, f, this.used);
    this.host.logger.info("subagent.end", {
      id: this.id,
      status: f.reason === "cancelled" ? "cancelled" : "failed",
      reason: f.reason,
      code: f.code,
      usage: this.used.usage,
    });
  }
}

/** A tripped limit as the handle's failure. */
function limitExceeded(trip: LimitTrip): SubagentFailure {
  return { reason: "limit-exceeded", code: trip.code, message: trip.message, stopReason: trip.stopReason };
}

/** Add one attempt's usage (its answer's, else its last progress) to the totals. */
function accumulate(before: Spent, end: AttemptEnd, last: Spent | undefined): Spent {
  const got =
    end.kind === "result"
      ? end.result
      : end.kind === "error" && end.data.usage
        ? { usage: end.data.usage, turns: end.data.turns ?? last?.turns ?? 0, toolCalls: last?.toolCalls ?? 0 }
        : last;
  if (!got) return before;
  return { usage: addUsage(before.usage, got.usage), turns: before.turns + got.turns, toolCalls: before.toolCalls + (got.toolCalls ?? 0) };
}
