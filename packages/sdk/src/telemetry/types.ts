/**
 * What an agent needs from a telemetry backend, with no tracing library in sight: a per-run recorder fed
 * with the run's events that also names the spans for W3C trace context propagation. The OpenTelemetry
 * implementation (the `@agentd/otel` package) is loaded only when `OTEL_*` configuration asks for it.
 */
import type { RunEvent } from "../loop/events.ts";
import type { RunTracer, TraceCarrier } from "../loop/trace-context.ts";

/** The recorder of one run: feed it every event, ask it for carriers (`RunTracer`). */
export interface RunTelemetry extends RunTracer {
  onEvent(event: RunEvent): void;
}

/**
 * What a backend reads of a run for its span: the run itself — the agent's `Run` (`@agentd/sdk/agent`) is one.
 * Declared here, below the agent, so telemetry names no part of it beyond these fields.
 */
export interface TracedRun {
  /** The run id (the span's `agentd.run.id`). */
  readonly id: string;
  /** The caller's trace context (an `agent.run` request's `_meta`, a parent agent's tool call): the run span is its child. */
  readonly traceContext: TraceCarrier | undefined;
  /** Where it came from; a trigger's run carries its firing (the trigger's id and kind, when its event happened). */
  readonly origin: { readonly kind: string; readonly event?: { readonly id: string; readonly kind: string; readonly firedAt: Date } };
}

/**
 * @deprecated `Telemetry.run` takes the run itself ({@link TracedRun}: `runId` is `id`, `parent` is
 * `traceContext`, `trigger` is `origin.event`); this shape goes in the next minor version.
 */
export interface RunOrigin {
  runId: string;
  parent?: TraceCarrier;
  trigger?: { id: string; kind: string; firedAt: Date };
}

/** A telemetry backend for an agent. */
export interface Telemetry {
  /** Start recording one run; nothing is exported until its `run-start` event arrives. */
  run(run: TracedRun): RunTelemetry;
  /** Export what is buffered (the one-shot path calls this before exiting). */
  flush(): Promise<void>;
  /** Flush and stop the exporters. Idempotent. */
  shutdown(): Promise<void>;
}
