/**
 * An agent's triggers: builds one {@link TriggerRouter} from trigger specs (the config's `triggers` block
 * and the CLI's flags), runs each event through the agent with its stable run id, keeps a status per
 * trigger, and logs what operators need: `trigger.fire`, `trigger.scheduled` (a schedule's next fire),
 * `trigger.unavailable`, `trigger.polling`, and `trigger.run-end` (outcome, duration, usage, error code).
 * Records of a triggered run (`run.start`, `tool.call.start`, `run.end` …) carry `trigger` when the agent logs
 * through `createRunTriggerTags(logger, triggerOf)`, where `triggerOf` names a run's trigger while it is in
 * flight (the agent's runs carry it: the trigger id comes with the run's `triggerEvent`).
 *
 * Restart = the same from config alone: connect, subscribe, read after subscribing (the subscription
 * source's level-triggered first read), so a change made while agentd was down is run once, under the run
 * id the state has always had.
 */
import { nullLogger, type Logger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import {
  CronSource,
  IntervalSource,
  SubscriptionSource,
  TriggerRouter,
  systemClock,
  type Clock,
  type Concurrency,
  type EventSource,
  type JobStore,
  type StopOptions,
  type TriggerRouterEvents,
} from "../index.ts";
import { TrackedSource } from "./tracked-source.ts";
import { PausableSource } from "./pausable-source.ts";
import {
  createTriggerRunner,
  type TriggerAgent,
  type TriggerRunData,
  type TriggerRunner,
  type TriggerRunnerOptions,
} from "./trigger-runner.ts";
import { validateTriggerSpec, type CronEngine, type SubscriptionSpec, type TriggerSpec } from "./trigger-specs.ts";
import { TriggerStatusTable, type TriggerStatus } from "./trigger-status.ts";

/** Options of {@link AgentTriggers}. */
export interface AgentTriggersOptions {
  agent: TriggerAgent;
  specs: readonly TriggerSpec[];
  /** The time-zone cron switch (default off: 5-field UTC). */
  cron?: CronEngine;
  /** Where schedules keep their last fire (time-zone cron only). */
  jobStore?: JobStore;
  logger?: Logger;
  clock?: Clock;
  /** Passed to the runner: called as a run begins / settles (telemetry tags, run registries). */
  onRunStart?: (runId: string, triggerId: string, instruction: string) => void;
  onRunSettled?: (runId: string, triggerId: string) => void;
  /** Claim each run id in a store first (runs claimed once across replicas). */
  claims?: TriggerRunnerOptions["claims"];
  /** Called before a run whose claim was taken over from a dead replica (resume from its checkpoint). */
  onTakeover?: TriggerRunnerOptions["onTakeover"];
  /** Called once connected, before the sources start (e.g. to restore a checkpoint's subscriptions). */
  beforeStart?: () => Promise<void>;
}

/** What {@link AgentTriggers.start} found. */
export interface TriggersStarted {
  active: number;
  unavailable: number;
}

/** See the module header. */
export class AgentTriggers {
  readonly router: TriggerRouter;
  readonly runner: TriggerRunner;
  private readonly table: TriggerStatusTable;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private started = false;
  private readonly cronSources = new Map<string, CronSource>();
  private readonly pausable = new Map<string, PausableSource>();
  private open = 0;
  private endedResolve: (() => void) | undefined;
  /** Resolves once every trigger has ended (all intervals reached maxRuns; none left to fire). */
  readonly ended: Promise<void>;

  constructor(private readonly options: AgentTriggersOptions) {
    this.logger = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock();
    this.table = new TriggerStatusTable(options.specs);
    this.runner = createTriggerRunner({
      agent: options.agent,
      onRunStart: options.onRunStart,
      onRunSettled: options.onRunSettled,
      claims: options.claims,
      onTakeover: options.onTakeover,
    });
    this.router = new TriggerRouter({ run: this.runner.run, logger: this.logger, clock: this.clock });
    this.ended = new Promise((resolve) => (this.endedResolve = resolve));
    this.router.on("source-end", () => {
      if (--this.open === 0) this.endedResolve?.();
    });
    this.router.on("fire", ({ event }) => {
      // At start, catch-up fires are followed by one summary line per schedule instead.
      if (event.kind === "cron" && this.started) this.logNextFire(event.triggerId, Date.parse(String(event.data.tick)));
    });
    this.router.on("run-end", (e) => this.onRunEnd(e));
  }

  /** Listen to a router event (`fire`, `run-start`, `run-end`, `drop` …). */
  on<K extends keyof TriggerRouterEvents>(name: K, listener: (payload: TriggerRouterEvents[K]) => void): () => void {
    return this.router.on(name, listener);
  }

  /** Listen to status changes (for `agent://status` subscribers). */
  onChange(listener: () => void): () => void {
    return this.table.onChange(listener);
  }

  /** Whether `start()` has armed the triggers. */
  get isStarted(): boolean {
    return this.started;
  }

  /** Every trigger's status. */
  status(): TriggerStatus[] {
    return this.table.list();
  }

  /**
   * Connect the agent, start every trigger (subscribe + read, arm clocks, catch up missed ticks), and log
   * each schedule's next fire. A trigger that cannot start is reported and left out; the rest run. Rejects
   * (every trigger `unavailable`) when the agent cannot connect (a required server is down: `E_UPSTREAM`).
   */
  async start(): Promise<TriggersStarted> {
    try {
      await this.options.agent.connect();
    } catch (error) {
      // A required server is down: no trigger can start. Say so per trigger, then let the caller decide.
      const reason = `cannot connect: ${error instanceof Error ? error.message : String(error)}`;
      for (const spec of this.options.specs) this.table.update(spec.id, { state: "unavailable", reason });
      throw error;
    }
    let added = 0;
    for (const spec of this.options.specs) {
      const first = this.sourceFor(spec);
      if (!first) continue;
      const source = new PausableSource(first, () => this.sourceFor(spec));
      this.pausable.set(spec.id, source);
      this.router.add({ id: spec.id, instruction: spec.instruction, ...policy(spec), source });
      added++;
    }
    this.open += added;
    // Restored state (the checkpoint's self-arranged subscriptions) joins before the sources start.
    await this.options.beforeStart?.();
    await this.router.start();
    this.started = true;
    for (const [id, source] of this.cronSources) this.logNextFire(id, this.clock.now(), source);
    const rows = this.table.list();
    const started = {
      active: rows.filter((r) => r.state === "active" || r.state === "polling").length,
      unavailable: rows.filter((r) => r.state === "unavailable").length,
    };
    if (this.open <= 0) this.endedResolve?.();
    this.logger.info("triggers.started", { ...started, triggers: rows.map((r) => r.id) });
    return started;
  }

  /**
   * Add a subscription trigger while the triggers run (a run arranged it for itself): subscribe, read at
   * once (level-triggered, as at start) and resolve with its state — `active`, `polling`, or `unavailable`
   * with the reason. Throws `E_CONFIG_INVALID` for a bad instruction template or a duplicate id.
   */
  async addSubscription(spec: SubscriptionSpec, extra: { arrangedBy?: string } = {}): Promise<TriggerStatus> {
    validateTriggerSpec(spec, this.options.cron ?? "utc");
    if (this.router.has(spec.id)) throw new AgentdError("E_CONFIG_INVALID", `trigger '${spec.id}' already exists`);
    this.table.add(spec, extra);
    const source = this.sourceFor(spec);
    if (!source) return this.table.get(spec.id) as TriggerStatus;
    const settled = new Promise<void>((resolve) => {
      const off = this.table.onChange(() => {
        if (this.table.get(spec.id)?.state === "starting") return;
        off();
        resolve();
      });
    });
    this.open++;
    this.router.add({ id: spec.id, instruction: spec.instruction, ...policy(spec), source });
    if (this.router.has(spec.id) && this.started) await settled;
    return this.table.get(spec.id) as TriggerStatus;
  }

  /** Take a trigger added with {@link addSubscription} out (its source stops; a run in flight finishes). */
  async removeTrigger(id: string): Promise<boolean> {
    const removed = await this.router.remove(id);
    this.table.remove(id);
    if (removed && --this.open === 0) this.endedResolve?.();
    return removed;
  }

  /** Stop taking events, let in-flight runs finish for `graceMs` (default 30 s), then abort them. */
  async stop(options: StopOptions = {}): Promise<void> {
    await this.router.stop(options);
    await this.options.claims?.close?.();
    await this.options.jobStore?.close?.();
  }

  /**
   * Pause the triggers named (all when `ids` is absent): their sources stop, so nothing they would have
   * fired runs (pausable-source.ts). Resolves with the ids paused now. Rejects with E_USAGE naming an
   * unknown id, or when the triggers have not started.
   */
  async pause(ids?: readonly string[]): Promise<string[]> {
    const chosen = this.choose(ids);
    const done: string[] = [];
    for (const [id, source] of chosen)
      if (await source.pause()) {
        done.push(id);
        this.table.update(id, { state: "paused" });
      }
    if (done.length) this.logger.info("triggers.paused", { triggers: done });
    return done;
  }

  /** Resume paused triggers (all when `ids` is absent), each reconciling like a restart. Resolves with the ids resumed. */
  async resume(ids?: readonly string[]): Promise<string[]> {
    const chosen = this.choose(ids);
    const done: string[] = [];
    for (const [id, source] of chosen) if (await source.resume()) done.push(id);
    if (done.length) this.logger.info("triggers.resumed", { triggers: done });
    return done;
  }

  private choose(ids: readonly string[] | undefined): [string, PausableSource][] {
    if (!this.started) throw new AgentdError("E_USAGE", "the triggers have not started: nothing to pause or resume");
    if (!ids) return [...this.pausable];
    const unknown = ids.filter((id) => !this.options.specs.some((s) => s.id === id));
    if (unknown.length)
      throw new AgentdError(
        "E_USAGE",
        `no trigger named ${unknown.map((u) => `'${u}'`).join(", ")}: the triggers are ${this.options.specs.map((s) => s.id).join(", ")}`,
      );
    return ids.flatMap((id) => (this.pausable.has(id) ? [[id, this.pausable.get(id)!] as [string, PausableSource]] : []));
  }

  // Build one trigger's source; a subscription whose server is not connected is unavailable at once.
  private sourceFor(spec: TriggerSpec): EventSource | undefined {
    const table = this.table;
    if (spec.kind === "interval")
      return new TrackedSource(new IntervalSource({ everyMs: spec.everyMs, maxRuns: spec.maxRuns }), {
        id: spec.id,
        table,
        startedState: "active",
      });
    if (spec.kind === "cron") {
      const timezones = this.options.cron === "timezones";
      const cron = new CronSource({
        expression: spec.cron,
        scheduleId: spec.id,
        mode: timezones ? "timezones" : "utc",
        tz: spec.tz,
        catchUp: spec.catchUp,
        jobStore: timezones ? this.options.jobStore : undefined,
      });
      this.cronSources.set(spec.id, cron);
      return new TrackedSource(cron, { id: spec.id, table, startedState: "active" });
    }
    const client = this.options.agent.clients.get(spec.server);
    if (!client) {
      const reason = `trigger '${spec.id}': server '${spec.server}' is not connected`;
      this.table.update(spec.id, { state: "unavailable", reason });
      this.logger.error("trigger.unavailable", { trigger: spec.id, server: spec.server, reason });
      return undefined;
    }
    const polled = !client.supportsSubscribe() && spec.pollIntervalMs !== undefined;
    const noPush = client.noPushReason?.();
    const why = noPush ? `gets no updates (${noPush.split(":")[0]})` : "does not support resource subscriptions";
    const reason = polled ? `server '${spec.server}' ${why}; polling every ${spec.pollIntervalMs}ms` : undefined;
    if (polled) this.logger.warn("trigger.polling", { trigger: spec.id, server: spec.server, everyMs: spec.pollIntervalMs });
    const source = new SubscriptionSource({
      client,
      uri: spec.uri,
      server: spec.server,
      pollIntervalMs: spec.pollIntervalMs,
    });
    return new TrackedSource(source, {
      id: spec.id,
      table,
      startedState: polled ? "polling" : "active",
      server: spec.server,
      reason,
    });
  }

  private logNextFire(id: string, after: number, source = this.cronSources.get(id)): void {
    if (!source || Number.isNaN(after)) return;
    const next = source.schedule.next(Math.max(after, this.clock.now()));
    if (!next) return;
    this.table.update(id, { nextFire: next.toISOString() });
    this.logger.info("trigger.scheduled", { trigger: id, nextFire: next.toISOString(), tz: source.schedule.timeZone });
  }

  private onRunEnd({ runId, triggerId, event, durationMs, outcome }: TriggerRouterEvents["run-end"]): void {
    this.table.recordRun(triggerId, runId, outcome);
    const data = (outcome.data ?? {}) as TriggerRunData;
    const level = outcome.status === "failed" ? "error" : outcome.status === "aborted" ? "warn" : "info";
    this.logger.log(level, "trigger.run-end", {
      trigger: triggerId,
      runId,
      status: outcome.status,
      durationMs: Math.round(durationMs),
      code: data.code || undefined,
      usage: data.usage,
      stopReason: data.stopReason || undefined,
      message: outcome.status === "ok" ? undefined : outcome.message || undefined,
      tick: event.data.tick,
      catchUp: event.data.catchUp === true || undefined,
    });
  }
}

function policy(spec: TriggerSpec): { concurrency?: Concurrency; coalesceMs?: number; conversation?: string } {
  const conversation = spec.conversation ? { conversation: spec.conversation } : {};
  if (spec.kind === "interval") return conversation;
  return { concurrency: spec.concurrency, coalesceMs: spec.kind === "subscription" ? spec.coalesceMs : undefined, ...conversation };
}
