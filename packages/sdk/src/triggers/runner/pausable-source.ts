/**
 * A trigger an operator can pause and resume. Pausing stops the source (unsubscribes, disarms its clock):
 * what happens meanwhile is not queued, so a paused trigger runs nothing. Resuming builds the source
 * afresh and starts it, so the trigger reconciles exactly as it would after a restart: a subscription
 * subscribes and reads the resource (a change made while paused runs once, under the run id of that state),
 * a `timezones` schedule with a job store catches up missed ticks per its `catchUp` policy, a UTC schedule
 * just re-arms, an interval starts a run at once. Runs already going when it is paused finish.
 */
import type { EventSource, SourceContext } from "../index.ts";

/** Wraps a trigger's source; see the module header. */
export class PausableSource implements EventSource {
  readonly kind: EventSource["kind"];
  private context: SourceContext | undefined;
  private paused = false;
  private stopped = false;

  constructor(
    private current: EventSource,
    /** Builds the source again (undefined when it cannot be built now, e.g. its server is gone). */
    private readonly rebuild: () => EventSource | undefined,
  ) {
    this.kind = current.kind;
  }

  /** Whether it is paused. */
  get isPaused(): boolean {
    return this.paused;
  }

  async start(context: SourceContext): Promise<void> {
    this.context = context;
    await this.current.start(context);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (!this.paused) await this.current.stop();
  }

  /** Stop the source until {@link resume}; false when already paused or stopped. */
  async pause(): Promise<boolean> {
    if (this.paused || this.stopped || !this.context) return false;
    this.paused = true;
    await this.current.stop();
    return true;
  }

  /** Start a fresh source (reconciling like a restart); false when not paused or stopped. */
  async resume(): Promise<boolean> {
    if (!this.paused || this.stopped || !this.context) return false;
    this.paused = false;
    const next = this.rebuild();
    if (!next) return true;
    this.current = next;
    await next.start(this.context);
    return true;
  }
}
