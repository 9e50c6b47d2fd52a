/**
 * A source fired by code: `agentd run --mode once`, an operator's A2A request, a test. It lets those go
 * through the same router (templates, concurrency, telemetry, drain on stop) as every other trigger.
 */
import { randomUuid } from "../_internal/hash.ts";
import { AgentdError } from "../wire/errors.ts";
import { manualRunId } from "./run-id.ts";
import type { EmitResult, EventSource, SourceContext } from "./types.ts";

/** Options of one manual fire. */
export interface ManualFireOptions {
  /** A caller-given stable id (e.g. `RUN_ID` from a Kubernetes CronJob); default: a fresh one. */
  runId?: string;
  /** Coalescing key (default: the run id, so each fire is its own work). */
  key?: string;
  data?: Record<string, unknown>;
}

/** Emits when {@link ManualSource.fire} is called. */
export class ManualSource implements EventSource {
  readonly kind = "manual" as const;
  private context: SourceContext | undefined;

  async start(context: SourceContext): Promise<void> {
    this.context = context;
  }

  async stop(): Promise<void> {
    this.context = undefined;
  }

  /** Fire once; settles when the run ends (or the event is dropped). Throws `E_USAGE` when not started. */
  fire(options: ManualFireOptions = {}): Promise<EmitResult> {
    const context = this.context;
    if (!context) return Promise.reject(new AgentdError("E_USAGE", "manual trigger is not started (start the router first)"));
    const runId = options.runId ?? manualRunId(context.triggerId, randomUuid());
    return context.emit({
      triggerId: context.triggerId,
      kind: "manual",
      key: options.key ?? runId,
      at: new Date(context.clock.now()),
      data: options.data ?? {},
      runId,
    });
  }
}
