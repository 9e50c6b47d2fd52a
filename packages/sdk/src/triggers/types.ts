/**
 * The shapes every trigger shares: the event a source emits, the source interface, and what a run returns.
 * A clock is just another event source: subscriptions, intervals, cron schedules and manual fires all end
 * up as {@link TriggerEvent}s in one router.
 */
import type { Logger } from "../log.ts";
import type { Clock } from "./clock.ts";

/** Where an event came from. */
export type TriggerKind = "subscription" | "interval" | "cron" | "manual";

/** One thing that happened and may cause a run. */
export interface TriggerEvent {
  /** The trigger that owns the source. */
  triggerId: string;
  kind: TriggerKind;
  /**
   * Coalescing key: events of one key describe the same thing, so a later one may stand in for an earlier
   * one (a resource URI; an interval trigger's id; one cron tick; one manual fire).
   */
  key: string;
  /** When the source emitted it. */
  at: Date;
  /** What the run may use: `{ uri, text, version, contents }` for a resource, `{ tick }` for a clock. */
  data: Record<string, unknown>;
  /** Stable id derived from the trigger and the event: a re-delivered event yields the same id. */
  runId: string;
}

/** What a run returns to the router (the agentic loop's result, reduced to what triggers need). */
export interface RunOutcome {
  /** `already-done` is a success: an idempotent run found its work done (exit 0, cheaply). */
  status: "ok" | "already-done" | "failed" | "aborted";
  /** One line for telemetry; never a secret or a whole payload. */
  message?: string;
  /** Anything else the caller wants back on `run-end` (e.g. stop reason, usage). */
  data?: Record<string, unknown>;
}

/** What became of an emitted event. Sources that pace themselves (interval, cron) await it. */
export type EmitResult =
  /** The event's own run ended (or a run of the very same run id it was merged into). */
  | { status: "ran"; runId: string; outcome: RunOutcome }
  /** A later event of the same key (or, under `skip`, of the same trigger) stood in for it; that run ended. */
  | { status: "covered"; runId: string; outcome: RunOutcome }
  /** It never ran: the router was stopping, or it was pushed out of a full queue. */
  | { status: "dropped"; reason: "stopped" | "overflow" };

/** Hand an event to the router; settles when the run it caused (or that covered it) ends. */
export type Emit = (event: TriggerEvent) => Promise<EmitResult>;

/** What the router gives a source when it starts it. */
export interface SourceContext {
  triggerId: string;
  emit: Emit;
  clock: Clock;
  logger: Logger;
  /** Call when the source will emit nothing more (e.g. an interval reached `maxRuns`). */
  end(): void;
}

/** Something that emits trigger events: a subscription, an interval, a cron schedule, a manual fire. */
export interface EventSource {
  /** The kind of events it emits (decides which template placeholders are valid). */
  readonly kind: TriggerKind;
  /** Begin emitting. A source that cannot work (missing capability) rejects here, with a clear error. */
  start(context: SourceContext): Promise<void>;
  /** Stop emitting and release what it holds (subscriptions, timers). Idempotent. */
  stop(): Promise<void>;
}

/**
 * How runs of one trigger may overlap.
 * - `skip`: one run at a time; an event arriving meanwhile is not run now, but the newest such event whose
 *   run id differs from the running one (a newer state) is remembered and run once after.
 * - `queue`: one run at a time, FIFO; a queued event is replaced by a later one of the same key when the
 *   two are consecutive in the queue.
 * - `{ parallel: N }`: up to N runs at once; the rest wait FIFO as in `queue`.
 */
export type Concurrency = "skip" | "queue" | { parallel: number };

/** A trigger: a source, the instruction template its runs get, and how its runs overlap. */
export interface TriggerDefinition {
  id: string;
  /** Instruction template, e.g. `"Triage: {{resource.text}}"`; checked by `validateTemplate` on `add`. */
  instruction: string;
  /**
   * The conversation every run of this trigger continues: each firing sees what the earlier ones did.
   * Firings on one conversation run one after another (the agent queues them; see docs/conversations.md).
   */
  conversation?: string;
  concurrency?: Concurrency;
  /**
   * Debounce window per key: events of one key within `coalesceMs` of each other produce one run that sees
   * the latest event (trailing edge), but never later than `4 × coalesceMs` after the first, so a constant
   * stream still runs. 0 or absent: no coalescing.
   */
  coalesceMs?: number;
  source: EventSource;
}
