/**
 * What each trigger is doing, for `agent://status` and start-up reporting: whether it runs (pushed or
 * polled), could not start (and why, in one line), or has ended; and its runs so far.
 */
import type { RunOutcome } from "../index.ts";
import type { TriggerSpec } from "./trigger-specs.ts";

/** A trigger's state. */
export type TriggerState =
  /** Not started yet. */
  | "starting"
  /** Subscribed (pushed updates), or a clock armed. */
  | "active"
  /** The server cannot push updates; the resource is read every `pollInterval`. */
  | "polling"
  /** Could not start; `reason` says why (e.g. the server does not support subscriptions). */
  | "unavailable"
  /** Will fire no more (an interval reached maxRuns; a schedule with no future tick). */
  | "ended"
  /** Stopped by shutdown. */
  | "stopped"
  /** Paused by an operator: its source is stopped until resumed. */
  | "paused";

/** One trigger as `agent://status` shows it. */
export interface TriggerStatus {
  id: string;
  kind: TriggerSpec["kind"];
  state: TriggerState;
  /** Why it is unavailable or polling. */
  reason?: string;
  server?: string;
  uri?: string;
  cron?: string;
  tz?: string;
  everyMs?: number;
  /** The next tick of a schedule (ISO). */
  nextFire?: string;
  runs: number;
  failures: number;
  lastRunId?: string;
  lastOutcome?: RunOutcome["status"];
  lastRunEndedAt?: string;
  /** A subscription a run arranged for itself (`agent.subscribe`): that run's id. */
  arrangedBy?: string;
}

/** The status of every trigger, with change notification. */
export class TriggerStatusTable {
  private readonly rows = new Map<string, TriggerStatus>();
  private readonly listeners = new Set<() => void>();

  /** Add a row for each spec, `starting`. */
  constructor(specs: readonly TriggerSpec[]) {
    for (const s of specs) this.rows.set(s.id, rowOf(s));
  }

  /** Add a row (a trigger added at run time), `starting`. */
  add(spec: TriggerSpec, extra: { arrangedBy?: string } = {}): void {
    this.rows.set(spec.id, { ...rowOf(spec), arrangedBy: extra.arrangedBy });
    for (const l of this.listeners) l();
  }

  /** Remove a row (a trigger taken out at run time). */
  remove(id: string): void {
    if (this.rows.delete(id)) for (const l of this.listeners) l();
  }

  /** Listen to changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(id: string): TriggerStatus | undefined {
    return this.rows.get(id);
  }

  /** Update a row (a no-op for unknown ids). */
  update(id: string, patch: Partial<Omit<TriggerStatus, "id" | "kind">>): void {
    const row = this.rows.get(id);
    if (!row) return;
    Object.assign(row, patch);
    if (patch.reason === undefined && "reason" in patch) delete row.reason;
    for (const l of this.listeners) l();
  }

  /** Record a finished run. */
  recordRun(id: string, runId: string, outcome: RunOutcome): void {
    const row = this.rows.get(id);
    if (!row) return;
    this.update(id, {
      runs: row.runs + 1,
      failures: row.failures + (outcome.status === "failed" ? 1 : 0),
      lastRunId: runId,
      lastOutcome: outcome.status,
      lastRunEndedAt: new Date().toISOString(),
    });
  }

  /** Copies of all rows, in spec order. */
  list(): TriggerStatus[] {
    return [...this.rows.values()].map((r) => ({ ...r }));
  }
}

function rowOf(s: TriggerSpec): TriggerStatus {
  const where =
    s.kind === "subscription" ? { server: s.server, uri: s.uri } : s.kind === "cron" ? { cron: s.cron, tz: s.tz } : { everyMs: s.everyMs };
  return { id: s.id, kind: s.kind, state: "starting", ...where, runs: 0, failures: 0 };
}
