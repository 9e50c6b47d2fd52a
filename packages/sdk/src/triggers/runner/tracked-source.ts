/**
 * An event source whose fate is recorded in the status table. A source that cannot start (its server
 * lacks `resources.subscribe` and no `pollInterval` is set; the first read failed) is reported — one
 * error line naming the trigger and the server, and `unavailable` in `agent://status` — instead of
 * failing the whole router: the other triggers carry on.
 */
import type { EventSource, SourceContext } from "../index.ts";
import type { TriggerStatusTable } from "./trigger-status.ts";

/** How the tracked source reports. */
export interface TrackedSourceOptions {
  id: string;
  table: TriggerStatusTable;
  /** The state once started (`polling` for a server that cannot push). */
  startedState: "active" | "polling";
  /** Set for a polled subscription. */
  reason?: string;
  /** For the unavailable line. */
  server?: string;
}

/** Wraps an {@link EventSource}; see the module header. */
export class TrackedSource implements EventSource {
  readonly kind: EventSource["kind"];
  private settled = false;

  constructor(
    private readonly inner: EventSource,
    private readonly options: TrackedSourceOptions,
  ) {
    this.kind = inner.kind;
  }

  async start(context: SourceContext): Promise<void> {
    const { id, table } = this.options;
    const tracked: SourceContext = {
      ...context,
      end: () => {
        this.settled = true;
        table.update(id, { state: "ended" });
        context.end();
      },
    };
    try {
      await this.inner.start(tracked);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.settled = true;
      table.update(id, { state: "unavailable", reason });
      context.logger.error("trigger.unavailable", { trigger: id, server: this.options.server, reason });
      // An unavailable trigger fires nothing: for the router it has ended.
      context.end();
      return;
    }
    if (!this.settled)
      table.update(id, { state: this.options.startedState, ...(this.options.reason ? { reason: this.options.reason } : {}) });
  }

  async stop(): Promise<void> {
    await this.inner.stop();
    if (!this.settled) this.options.table.update(this.options.id, { state: "stopped" });
  }
}
