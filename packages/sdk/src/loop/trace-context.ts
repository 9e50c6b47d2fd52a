/**
 * W3C trace context as the loop carries it, with no tracing library behind it: a run may be handed a
 * `RunTracer` (the OpenTelemetry module builds one when telemetry is configured) that names the span a
 * model request or a tool call belongs to, and the loop forwards that as a `traceparent` header to the
 * LLM gateway and as `_meta.traceparent` to MCP servers. Without a tracer nothing here runs.
 */

/** The two W3C Trace Context fields (https://www.w3.org/TR/trace-context/), as header or `_meta` values. */
export interface TraceCarrier {
  traceparent: string;
  tracestate?: string;
}

/** Where in a run a carrier is asked for. */
export type TraceSite = { kind: "model"; turn: number } | { kind: "tool"; toolCallId: string };

/** Hands out the trace context of the span that covers a model request or a tool call of one run. */
export interface RunTracer {
  /** Called right after the `model-start` / `tool-call-start` event of that site was emitted. */
  carrier(site: TraceSite): TraceCarrier | undefined;
}

// version 00: 2 hex version, 32 hex trace id (not all zero), 16 hex span id (not all zero), 2 hex flags.
const TRACEPARENT = /^[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A valid `traceparent` value (version `ff` is forbidden by the spec). */
export const isTraceparent = (v: unknown): v is string => typeof v === "string" && TRACEPARENT.test(v) && !v.startsWith("ff");

/**
 * The trace context in an MCP request's `_meta` (`traceparent`, `tracestate`, unprefixed, as the MCP
 * trace-context proposal and the OpenTelemetry MCP conventions place them), or undefined when absent or
 * malformed — a bad value from a caller starts a fresh trace rather than failing the request.
 */
export function traceCarrierFromMeta(meta: Record<string, unknown> | undefined): TraceCarrier | undefined {
  const traceparent = meta?.traceparent;
  if (!isTraceparent(traceparent)) return undefined;
  const tracestate = meta?.tracestate;
  return typeof tracestate === "string" && tracestate.length <= 512 ? { traceparent, tracestate } : { traceparent };
}
