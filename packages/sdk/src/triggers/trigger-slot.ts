/**
 * The runtime state of one trigger inside the router: the debounce window per key (coalescing), the
 * waiting line (concurrency policy) and the runs in flight. It decides; the router executes and reports.
 */
import type { Clock, TimerHandle } from "./clock.ts";
import type { EmitResult, RunOutcome, TriggerDefinition, TriggerEvent } from "./types.ts";

/** Why an event did not get a run of its own. */
export type DropReason =
  /** A later event of the same key arrived within the coalescing window; its run covers this one. */
  | "coalesced"
  /** Replaced while waiting by a later event (same key under queue/parallel; any under skip). */
  | "superseded"
  /** Its run id is already running or waiting: it joins that run. */
  | "duplicate"
  /** The router is stopping (or stopped): it will not run. */
  | "stopped"
  /** The waiting line was full: the oldest waiting event was pushed out. */
  | "overflow";

interface Waiter {
  runId: string;
  resolve: (result: EmitResult) => void;
}

/** An event with everyone waiting on its outcome (its own emitter plus those it covers). */
interface Pending {
  event: TriggerEvent;
  waiters: Waiter[];
}

interface InFlight {
  pending: Pending;
  controller: AbortController;
}

/** What the slot needs from the router. */
export interface SlotHooks {
  clock: Clock;
  /** Run one event; never rejects (failures are outcomes). */
  execute(event: TriggerEvent, signal: AbortSignal): Promise<RunOutcome>;
  onDrop(event: TriggerEvent, reason: DropReason): void;
  onRunStart(event: TriggerEvent): void;
  onRunEnd(event: TriggerEvent, durationMs: number, outcome: RunOutcome): void;
}

/** The largest number of events one trigger keeps waiting before pushing out the oldest. */
export const DEFAULT_MAX_WAITING = 1000;

/** Debounce, concurrency and in-flight bookkeeping for one trigger. */
export class TriggerSlot {
  private readonly max: number;
  private readonly skip: boolean;
  private readonly coalesceMs: number;
  private readonly debouncing = new Map<string, { pending: Pending; firstAt: number; timer: TimerHandle }>();
  private waiting: Pending[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  private idleWaiters: Array<() => void> = [];
  private closed = false;

  constructor(
    readonly definition: TriggerDefinition,
    private readonly hooks: SlotHooks,
    private readonly maxWaiting = DEFAULT_MAX_WAITING,
  ) {
    const c = definition.concurrency ?? "skip";
    this.skip = c === "skip";
    this.max = typeof c === "object" ? c.parallel : 1;
    this.coalesceMs = definition.coalesceMs ?? 0;
  }

  /** Counts for health and tests. */
  get counts(): { inFlight: number; waiting: number; debouncing: number } {
    return { inFlight: this.inFlight.size, waiting: this.waiting.length, debouncing: this.debouncing.size };
  }

  /** Take an event; the promise settles when the run that handles it ends (or it is dropped). */
  offer(event: TriggerEvent): Promise<EmitResult> {
    return new Promise((resolve) => {
      const pending: Pending = { event, waiters: [{ runId: event.runId, resolve }] };
      if (this.closed) return this.drop(pending, "stopped");
      if (this.coalesceMs > 0) this.debounce(pending);
      else this.admit(pending);
    });
  }

  /** Stop taking events: everything not yet running is dropped as `stopped`. */
  closeIntake(): void {
    this.closed = true;
    for (const d of this.debouncing.values()) {
      this.hooks.clock.clearTimer(d.timer);
      this.drop(d.pending, "stopped");
    }
    this.debouncing.clear();
    for (const p of this.waiting) this.drop(p, "stopped");
    this.waiting = [];
  }

  /** Abort every run in flight (their signals fire with `reason`). */
  abortAll(reason: unknown): number {
    for (const run of this.inFlight.values()) run.controller.abort(reason);
    return this.inFlight.size;
  }

  /** Resolves when no run of this trigger is in flight. */
  idle(): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // Trailing-edge debounce per key, with a max wait of 4 × coalesceMs from the first event of the burst.
  private debounce(pending: Pending): void {
    const { clock } = this.hooks;
    const key = pending.event.key;
    const open = this.debouncing.get(key);
    if (open) {
      clock.clearTimer(open.timer);
      this.merge(open.pending, pending, "coalesced");
      open.pending = pending;
      const due = Math.min(clock.now() + this.coalesceMs, open.firstAt + 4 * this.coalesceMs);
      open.timer = clock.setTimer(new Date(due), () => this.flush(key));
      return;
    }
    const timer = clock.setTimer(this.coalesceMs, () => this.flush(key));
    this.debouncing.set(key, { pending, firstAt: clock.now(), timer });
  }

  private flush(key: string): void {
    const open = this.debouncing.get(key);
    if (!open) return;
    this.debouncing.delete(key);
    this.admit(open.pending);
  }

  // The concurrency policy: run now, join an identical run, or wait (replacing what it supersedes).
  private admit(pending: Pending): void {
    const { runId, key } = pending.event;
    const running = this.inFlight.get(runId);
    if (running) return this.join(running.pending, pending);
    const twin = this.waiting.find((p) => p.event.runId === runId);
    if (twin) return this.join(twin, pending);
    if (this.inFlight.size < this.max && this.waiting.length === 0) return this.start(pending);
    if (this.skip) {
      // Level-triggered: only the newest state matters, so one remembered event runs after the current one.
      const older = this.waiting[0];
      if (older) this.merge(older, pending, "superseded");
      this.waiting = [pending];
      return;
    }
    const tail = this.waiting.at(-1);
    if (tail && tail.event.key === key) {
      this.merge(tail, pending, "superseded");
      this.waiting[this.waiting.length - 1] = pending;
      return;
    }
    this.waiting.push(pending);
    if (this.waiting.length > this.maxWaiting) this.drop(this.waiting.shift() as Pending, "overflow");
  }

  /** `newer` takes over `older`'s waiters; `older` is reported dropped. */
  private merge(older: Pending, newer: Pending, reason: DropReason): void {
    newer.waiters.unshift(...older.waiters);
    this.hooks.onDrop(older.event, older.event.runId === newer.event.runId ? "duplicate" : reason);
  }

  /** `same` has the run id of `into`: its waiters wait on that run. */
  private join(into: Pending, same: Pending): void {
    into.waiters.push(...same.waiters);
    this.hooks.onDrop(same.event, "duplicate");
  }

  private drop(pending: Pending, reason: "stopped" | "overflow"): void {
    this.hooks.onDrop(pending.event, reason);
    for (const w of pending.waiters) w.resolve({ status: "dropped", reason });
  }

  private start(pending: Pending): void {
    const { clock } = this.hooks;
    const { event } = pending;
    const controller = new AbortController();
    this.inFlight.set(event.runId, { pending, controller });
    const startedAt = clock.now();
    this.hooks.onRunStart(event);
    // execute never rejects by contract; the guards keep a broken hook from wedging the slot.
    const failed = (error: unknown): RunOutcome => ({ status: "failed", message: String(error) });
    let running: Promise<RunOutcome>;
    try {
      running = this.hooks.execute(event, controller.signal);
    } catch (error) {
      running = Promise.resolve(failed(error));
    }
    void running.catch(failed).then((outcome) => {
      this.inFlight.delete(event.runId);
      this.hooks.onRunEnd(event, clock.now() - startedAt, outcome);
      for (const w of pending.waiters) w.resolve({ status: w.runId === event.runId ? "ran" : "covered", runId: event.runId, outcome });
      this.pump();
    });
  }

  private pump(): void {
    while (!this.closed && this.inFlight.size < this.max && this.waiting.length > 0) this.start(this.waiting.shift() as Pending);
    if (this.inFlight.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
