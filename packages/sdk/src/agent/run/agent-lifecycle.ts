/**
 * An agent's lifecycle: which runs are in flight (to cancel one by id, or what a drain's grace did not
 * cover), and the shutdown in its order — `drain()` stops taking work and lets what is in flight finish
 * within the grace, `close()` cancels what is left and releases everything. Kept apart from running and
 * serving so the order of a shutdown reads in one place.
 */
import type { Logger } from "../../log.ts";
import { MAX_TIMEOUT_MS, setLongTimeout } from "../../_internal/timer.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentLifecycleStatus, DrainOptions } from "./run-options.ts";
import type { Runs } from "./runs.ts";

/** What the lifecycle reaches of the served agent once it serves: it registers itself (`attach`). */
export interface ServedEndpoints {
  /** Stop taking runs over MCP and A2A (they answer that the agent is shutting down). */
  stopTaking(): void;
  /** Wait (until `deadline`, epoch ms) for served runs to finish and every answer to be sent. */
  settle(deadline: number): Promise<void>;
  /** The grace is over: answer every request in flight with `message`. */
  interrupt(message: string): void;
  /** Called first when closing: served tasks stopped by the shutdown stay working in the checkpoint (absent: none kept). */
  keepTasks?(): void;
  /** Close every endpoint. */
  close(): Promise<void>;
}

/** What the lifecycle stops of the triggers (the live configuration registers itself: `attachTriggers`). */
export interface StoppableTriggers {
  /** The current triggers and those a reload replaced. */
  allTriggers(): ReadonlyArray<{ stop(options: { graceMs: number }): Promise<unknown> }>;
}

/** What the lifecycle is given when it is made (everything it reaches later registers itself). */
export interface LifecycleParts {
  /** Awaited before the endpoints close (the remote A2A agents' calls settle). */
  beforeEndpointsClose?: () => Promise<void>;
  /** Everything the agent holds, released once its runs are cancelled and its endpoints closed (checkpoint, children, connections). */
  release: () => Promise<void>;
  logger: Logger;
}

/** See the module header. */
export class AgentLifecycle {
  state: AgentLifecycleStatus["state"] = "running";
  private closing: Promise<void> | undefined;
  private draining: Promise<void> | undefined;
  private quiescing: Promise<void> | undefined;
  /** Why the agent drains (e.g. `SIGTERM`): the abort reason of the runs the grace did not cover. */
  private drainReason: string | undefined;
  private served: ServedEndpoints | undefined;
  private triggers: StoppableTriggers | undefined;

  constructor(
    /** Runs in flight (direct, triggered, served): the agent's one table of them, cancelled when a drain's grace runs out. */
    readonly runs: Runs,
    private readonly parts: LifecycleParts,
  ) {}

  /** The served agent registers itself when it first serves: a drain stops it taking work, a close closes it. */
  attach(served: ServedEndpoints): void {
    this.served = served;
  }

  /** The live configuration registers its triggers: a drain stops them. */
  attachTriggers(triggers: StoppableTriggers): void {
    this.triggers = triggers;
  }

  private allTriggers() {
    return this.triggers?.allTriggers() ?? [];
  }

  /** The ids of the runs in flight. */
  runIds(): string[] {
    return this.runs.ids();
  }

  /** Abort the run in flight with this id; false when none is. */
  cancel(runId: string, reason: string): boolean {
    const run = this.runs.get(runId);
    if (!run) return false;
    run.cancel(new AgentdError("E_ABORTED", reason));
    return true;
  }

  /** Abort every run in flight with `reason`. */
  private cancelAll(reason: unknown): void {
    for (const run of this.runs.all()) run.cancel(reason);
  }

  /** Resolve once no run is in flight, or at `deadline`. */
  private async runsSettled(deadline: number): Promise<void> {
    while (this.runs.size > 0 && Date.now() < deadline)
      await new Promise<void>((resolve) => {
        const done = () => {
          cancel();
          off();
          resolve();
        };
        const cancel = setLongTimeout(done, deadline - Date.now());
        const off = this.runs.onSettle(done);
      });
  }

  /** Close every endpoint, trigger, subagent and connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.state = "closed";
      this.served?.keepTasks?.();
      // Every request still in flight gets its final answer first (the run cancelled by the shutdown), then
      // its run is cancelled with the same words.
      const cancelled = new AgentdError("E_ABORTED", `run cancelled by shutdown (${this.drainReason ?? "the agent is closing"})`);
      this.served?.interrupt(cancelled.message);
      // An operator's drain may hold the triggers' stop open with its own grace: their runs are cancelled first.
      if (this.quiescing) this.cancelAll(cancelled);
      await Promise.all(this.allTriggers().map((t) => t.stop({ graceMs: 0 })));
      this.cancelAll(cancelled);
      await this.parts.beforeEndpointsClose?.();
      await this.served?.close();
      await this.parts.release();
    })();
    return this.closing;
  }

  /**
   * Stop taking work (runs, triggers, served requests) and let what is in flight finish; at `graceMs`
   * (Infinity: never) cancel what is left. The agent stays up (serving status) until closed.
   */
  private quiesce(graceMs: number, reason: string): Promise<void> {
    this.quiescing ??= (async () => {
      const { logger } = this.parts;
      this.state = "draining";
      this.drainReason = reason;
      this.served?.stopTaking();
      const deadline = Date.now() + graceMs;
      logger.info("agent.draining", { reason, graceMs: graceMs !== Infinity ? graceMs : undefined, inFlight: this.runs.size });
      const triggersStopped = Promise.all(this.allTriggers().map((t) => t.stop({ graceMs: Math.min(graceMs, MAX_TIMEOUT_MS) })));
      await this.runsSettled(deadline);
      await this.served?.settle(deadline);
      // The triggers abort their own runs at the grace (so those end `aborted`); then the rest, unless closing.
      await triggersStopped;
      if (this.draining || this.state !== "draining") return;
      this.cancelAll(this.drainReason ?? reason);
      this.state = "drained";
      logger.info("agent.drained", { reason });
    })();
    return this.quiescing;
  }

  /** See {@link Agent.drain}. */
  drain(graceMs: number, reason: string, options: DrainOptions): Promise<void> {
    // A second drain joins the first (its grace stands); `close()` is the way to stop at once.
    if (this.state === "closed") return this.close();
    if (options.close === false) return this.quiesce(graceMs, reason);
    this.draining ??= (async () => {
      this.drainReason = reason;
      // An operator's drain may be going already (with a longer grace): this one's grace bounds the wait.
      const quiescing = this.quiescing;
      if (quiescing)
        await new Promise<void>((resolve) => {
          const cancel = setLongTimeout(resolve, graceMs);
          void quiescing.then(() => {
            cancel();
            resolve();
          });
        });
      else await this.quiesce(graceMs, reason);
      await this.close();
    })();
    return this.draining;
  }
}
