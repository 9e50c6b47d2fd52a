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

/** Where a run came from, for the run span. */
export interface RunOrigin {
  runId: string;
  /** The caller's trace context (an `agent.run` request's `_meta`, a parent agent's tool call). */
  parent?: TraceCarrier;
  /** The trigger that started the run, and when its event happened (for the trigger-lag metric). */
  trigger?: { id: string; kind: string; firedAt: Date };
}

/** A telemetry backend for an agent. */
export interface Telemetry {
  /** Start recording one run; nothing is exported until its `run-start` event arrives. */
  run(origin: RunOrigin): RunTelemetry;
  /** Export what is buffered (the one-shot path calls this before exiting). */
  flush(): Promise<void>;
  /** Flush and stop the exporters. Idempotent. */
  shutdown(): Promise<void>;
}
