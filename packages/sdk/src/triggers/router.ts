/**
 * The trigger router: every source (subscription, interval, cron, manual) emits {@link TriggerEvent}s
 * into it, and it turns them into runs: coalescing bursts, applying each trigger's concurrency policy,
 * rendering the instruction, and draining in-flight runs on stop. A clock is just another event source.
 */
import { nullLogger, type Logger } from "../log.ts";
import { AgentdError } from "../wire/errors.ts";
import { systemClock, type Clock } from "./clock.ts";
import { renderTemplate, validateTemplate } from "./template.ts";
import { TriggerSlot, type DropReason } from "./trigger-slot.ts";
import type { Emit, RunOutcome, SourceContext, TriggerDefinition, TriggerEvent } from "./types.ts";

/** What a run gets besides the event and its abort signal. */
export interface RunContext {
  triggerId: string;
  /** The trigger's instruction template rendered for this event. */
  instruction: string;
  /** The conversation the run continues, when the trigger names one. */
  conversation?: string;
}

/** Runs one event (the agentic loop, in agentd). Rejecting is a `failed` outcome (or `aborted` after abort). */
export type RunFunction = (event: TriggerEvent, signal: AbortSignal, context: RunContext) => Promise<RunOutcome>;

/** Router construction options. */
export interface TriggerRouterOptions {
  run: RunFunction;
  logger?: Logger;
  /** Defaults to the system clock; tests pass a `FakeClock`. */
  clock?: Clock;
  /** Per trigger, how many events may wait before the oldest is pushed out (default 1000). */
  maxWaiting?: number;
}

/** Telemetry events, by name. */
export interface TriggerRouterEvents {
  /** A source emitted an event (before coalescing and concurrency decide its fate). */
  fire: { event: TriggerEvent };
  /** An event will not get a run of its own. */
  drop: { event: TriggerEvent; reason: DropReason };
  "run-start": { runId: string; triggerId: string; event: TriggerEvent };
  "run-end": { runId: string; triggerId: string; event: TriggerEvent; durationMs: number; outcome: RunOutcome };
  /** A source said it will emit nothing more (e.g. an interval reached `maxRuns`). */
  "source-end": { triggerId: string };
  /** A source added after `start()` failed to start. */
  "source-error": { triggerId: string; error: unknown };
}

type Listener<K extends keyof TriggerRouterEvents> = (payload: TriggerRouterEvents[K]) => void;

/** Options of {@link TriggerRouter.stop}. */
export interface StopOptions {
  /** How long in-flight runs may take to finish before their AbortSignals fire (default 30 s). */
  graceMs?: number;
}

/** Validate a trigger definition; throws `E_CONFIG_INVALID` with one clear line. */
export function validateTrigger(def: TriggerDefinition): void {
  const bad = (what: string) => new AgentdError("E_CONFIG_INVALID", `trigger '${def.id}': ${what}`);
  if (typeof def.id !== "string" || def.id.length === 0)
    throw new AgentdError("E_CONFIG_INVALID", "trigger: id must be a non-empty string");
  const c = def.concurrency;
  if (c !== undefined && c !== "skip" && c !== "queue") {
    if (typeof c !== "object" || !Number.isInteger(c.parallel) || c.parallel < 1)
      throw bad('concurrency must be "skip", "queue" or { parallel: N } with N ≥ 1');
  }
  if (def.coalesceMs !== undefined && !(Number.isFinite(def.coalesceMs) && def.coalesceMs >= 0))
    throw bad("coalesce must be a duration ≥ 0");
  validateTemplate(def.instruction, def.source.kind, def.id);
}

/** Routes trigger events to runs. See the module header. */
export class TriggerRouter {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly slots = new Map<string, TriggerSlot>();
  /** Removed triggers whose runs are still in flight (a stop drains them too). */
  private readonly retiring = new Set<TriggerSlot>();
  private readonly listeners = new Map<keyof TriggerRouterEvents, Set<(payload: never) => void>>();
  private state: "new" | "running" | "stopping" | "stopped" = "new";
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: TriggerRouterOptions) {
    this.clock = options.clock ?? systemClock();
    this.logger = options.logger ?? nullLogger;
  }

  /** Listen to a telemetry event; returns the unsubscribe function. */
  on<K extends keyof TriggerRouterEvents>(name: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  /**
   * Register a trigger (validated now: a bad template or policy throws `E_CONFIG_INVALID`). Added after
   * `start()`, its source starts at once; a failure to start is reported as `source-error`.
   */
  add(def: TriggerDefinition): void {
    if (this.state === "stopping" || this.state === "stopped") throw new AgentdError("E_USAGE", "trigger router is stopped");
    if (this.slots.has(def.id)) throw new AgentdError("E_CONFIG_INVALID", `trigger '${def.id}' is defined twice`);
    validateTrigger(def);
    const slot = new TriggerSlot(def, this.hooks(def.id), this.options.maxWaiting);
    this.slots.set(def.id, slot);
    if (this.state === "running")
      this.startSource(slot).catch((error: unknown) => {
        this.logger.error("trigger.source-error", { triggerId: def.id, error: describe(error) });
        this.publish("source-error", { triggerId: def.id, error });
      });
  }

  /**
   * Take a trigger out while the router runs (a self-arranged subscription cancelled): its source stops,
   * its waiting events are dropped, and a run in flight finishes (a stop still drains it; not awaited here:
   * the run asking for the removal may be that trigger's own). Resolves once the source stopped.
   */
  async remove(id: string): Promise<boolean> {
    const slot = this.slots.get(id);
    if (!slot) return false;
    this.slots.delete(id);
    slot.closeIntake();
    this.retiring.add(slot);
    void slot.idle().then(() => this.retiring.delete(slot));
    await slot.definition.source.stop().catch((error: unknown) => {
      this.logger.warn("trigger.source-stop-failed", { triggerId: id, error: describe(error) });
    });
    return true;
  }

  /** Whether a trigger with this id is registered. */
  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Start every source. If one cannot start, the others are stopped and its error is thrown. */
  async start(): Promise<void> {
    if (this.state !== "new") throw new AgentdError("E_USAGE", "trigger router already started");
    this.state = "running";
    const results = await Promise.allSettled([...this.slots.values()].map((s) => this.startSource(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) {
      await this.stop({ graceMs: 0 });
      throw failed.reason;
    }
  }

  /**
   * Stop accepting events (sources stop; waiting and debounced events are dropped), let in-flight runs
   * finish for up to `graceMs`, then abort the rest through their AbortSignals. Resolves when every run
   * has settled (a run that ignores its signal delays this). Idempotent.
   */
  stop(options: StopOptions = {}): Promise<void> {
    if (this.stopping) return this.stopping;
    this.state = "stopping";
    const graceMs = options.graceMs ?? 30_000;
    this.stopping = (async () => {
      const slots = [...this.slots.values(), ...this.retiring];
      const sourcesStopped = Promise.allSettled(
        slots.map((s) =>
          s.definition.source.stop().catch((error: unknown) => {
            this.logger.warn("trigger.source-stop-failed", { triggerId: s.definition.id, error: describe(error) });
          }),
        ),
      );
      for (const s of slots) s.closeIntake();
      const drained = Promise.all(slots.map((s) => s.idle())).then(() => "drained" as const);
      let timer: ReturnType<Clock["setTimer"]> | undefined;
      const grace =
        graceMs <= 0
          ? ("grace" as const)
          : await Promise.race([drained, new Promise<"grace">((r) => (timer = this.clock.setTimer(graceMs, () => r("grace"))))]);
      if (timer) this.clock.clearTimer(timer);
      if (grace === "grace") {
        const reason = new AgentdError("E_ABORTED", "trigger router stopped: grace period over");
        const aborted = slots.reduce((n, s) => n + s.abortAll(reason), 0);
        if (aborted > 0) this.logger.warn("trigger.abort", { runs: aborted, graceMs });
      }
      await drained;
      await sourcesStopped;
      this.state = "stopped";
    })();
    return this.stopping;
  }

  /** Counts over all triggers: runs in flight, events waiting, keys in a debounce window. */
  snapshot(): { triggers: number; inFlight: number; waiting: number; debouncing: number } {
    const out = { triggers: this.slots.size, inFlight: 0, waiting: 0, debouncing: 0 };
    for (const s of this.slots.values()) {
      const c = s.counts;
      out.inFlight += c.inFlight;
      out.waiting += c.waiting;
      out.debouncing += c.debouncing;
    }
    return out;
  }

  private startSource(slot: TriggerSlot): Promise<void> {
    const triggerId = slot.definition.id;
    const context: SourceContext = {
      triggerId,
      emit: this.emitFor(slot),
      clock: this.clock,
      logger: this.logger.child({ triggerId }),
      end: () => this.publish("source-end", { triggerId }),
    };
    return slot.definition.source.start(context);
  }

  private emitFor(slot: TriggerSlot): Emit {
    return (event) => {
      if (this.state !== "running") {
        this.publish("drop", { event, reason: "stopped" });
        return Promise.resolve({ status: "dropped", reason: "stopped" });
      }
      this.logger.info("trigger.fire", { triggerId: event.triggerId, kind: event.kind, runId: event.runId, key: event.key });
      this.publish("fire", { event });
      return slot.offer(event);
    };
  }

  private hooks(triggerId: string) {
    return {
      clock: this.clock,
      execute: (event: TriggerEvent, signal: AbortSignal) => this.execute(triggerId, event, signal),
      onDrop: (event: TriggerEvent, reason: DropReason) => {
        this.logger.debug("trigger.drop", { triggerId, runId: event.runId, key: event.key, reason });
        this.publish("drop", { event, reason });
      },
      onRunStart: (event: TriggerEvent) => this.publish("run-start", { runId: event.runId, triggerId, event }),
      onRunEnd: (event: TriggerEvent, durationMs: number, outcome: RunOutcome) =>
        this.publish("run-end", { runId: event.runId, triggerId, event, durationMs, outcome }),
    };
  }

  private async execute(triggerId: string, event: TriggerEvent, signal: AbortSignal): Promise<RunOutcome> {
    try {
      const slot = this.slots.get(triggerId);
      const instruction = slot ? renderTemplate(slot.definition.instruction, event) : "";
      const conversation = slot?.definition.conversation;
      return await this.options.run(event, signal, { triggerId, instruction, ...(conversation ? { conversation } : {}) });
    } catch (error) {
      if (signal.aborted) return { status: "aborted", message: describe(error) };
      this.logger.error("trigger.run-failed", { triggerId, runId: event.runId, error: describe(error) });
      return { status: "failed", message: describe(error) };
    }
  }

  private publish<K extends keyof TriggerRouterEvents>(name: K, payload: TriggerRouterEvents[K]): void {
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        (listener as Listener<K>)(payload);
      } catch (error) {
        this.logger.warn("trigger.listener-failed", { event: name, error: describe(error) });
      }
    }
  }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
