/**
 * `--interval D` as an event source. D is the interval BETWEEN runs: the first run starts at once, and
 * each next one starts D after the previous run ENDED (D = 0 re-enters immediately). Runs therefore never
 * overlap, whatever the trigger's concurrency. The source paces itself on the promise `emit` returns,
 * which settles when the run it caused ends.
 */
import { randomUuid } from "../_internal/hash.ts";
import { AgentdError } from "../wire/errors.ts";
import type { TimerHandle } from "./clock.ts";
import { intervalRunId } from "./run-id.ts";
import type { EventSource, SourceContext } from "./types.ts";

/** Options of an {@link IntervalSource}. */
export interface IntervalSourceOptions {
  /** Pause between the end of one run and the start of the next, in ms (0 = re-enter immediately). */
  everyMs: number;
  /** Stop after this many runs (absent: run until stopped). */
  maxRuns?: number;
  /**
   * Distinguishes this process's runs from another's in their run ids (see `intervalRunId`). Default:
   * the start instant plus a random nonce. Tests pass a fixed value.
   */
  instance?: string;
}

/** Emits one event per run, sequentially. See the module header. */
export class IntervalSource implements EventSource {
  readonly kind = "interval" as const;
  private stopped = false;
  private timer: TimerHandle | undefined;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private context: SourceContext | undefined;

  constructor(private readonly options: IntervalSourceOptions) {
    if (!(Number.isFinite(options.everyMs) && options.everyMs >= 0))
      throw new AgentdError("E_CONFIG_INVALID", "interval: every must be a duration ≥ 0");
    if (options.maxRuns !== undefined && !(Number.isInteger(options.maxRuns) && options.maxRuns >= 1))
      throw new AgentdError("E_CONFIG_INVALID", "interval: maxRuns must be a whole number ≥ 1");
  }

  async start(context: SourceContext): Promise<void> {
    this.context = context;
    const instance = this.options.instance ?? `${new Date(context.clock.now()).toISOString()}/${randomUuid().slice(0, 8)}`;
    this.loop = this.run(context, instance).catch((error: unknown) => {
      context.logger.error("trigger.interval-failed", { error: String(error) });
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer && this.context) this.context.clock.clearTimer(this.timer);
    this.wake?.();
    // The loop ends once the run in flight settles (the router drains or aborts it).
    await this.loop;
  }

  private async run(context: SourceContext, instance: string): Promise<void> {
    const { everyMs, maxRuns } = this.options;
    let runs = 0;
    for (let seq = 1; !this.stopped; seq++) {
      const at = new Date(context.clock.now());
      const result = await context.emit({
        triggerId: context.triggerId,
        kind: "interval",
        key: context.triggerId,
        at,
        data: { tick: at.toISOString(), seq },
        runId: intervalRunId(context.triggerId, instance, seq),
      });
      if (result.status === "dropped") break;
      runs++;
      if (maxRuns !== undefined && runs >= maxRuns) break;
      if (everyMs > 0 && !this.stopped) await this.pause(context, everyMs);
      // D = 0 with a run that settles at once would chain microtasks forever and starve I/O (signals,
      // sockets): yield one macrotask. This is not a wait on time, so it does not go through the clock.
      else await new Promise((resolve) => setTimeout(resolve, 0));
    }
    context.end();
  }

  private pause(context: SourceContext, ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = context.clock.setTimer(ms, resolve);
    });
  }
}
