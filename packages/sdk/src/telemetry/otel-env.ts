/**
 * Whether the standard `OTEL_*` environment asks for telemetry, read without loading any OpenTelemetry
 * code. Telemetry is off unless configured: an OTLP endpoint must be named (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or the per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT`), and `OTEL_SDK_DISABLED=true` or an
 * exporter of `none` turns a signal off. Only the OTLP exporter (HTTP/protobuf) is offered.
 */

/** The signals to export. */
export interface OtelSignals {
  traces: boolean;
  metrics: boolean;
}

const set = (v: string | undefined) => v !== undefined && v.trim() !== "";

/** The signals the environment turns on, or undefined when telemetry is off. */
export function otelSignalsFromEnv(env: Record<string, string | undefined>): OtelSignals | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const base = set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const on = (exporter: string | undefined, endpoint: string | undefined) => {
    const names = (exporter ?? "otlp").split(",").map((s) => s.trim().toLowerCase());
    return names.includes("otlp") && (base || set(endpoint));
  };
  const traces = on(env.OTEL_TRACES_EXPORTER, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const metrics = on(env.OTEL_METRICS_EXPORTER, env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  return traces || metrics ? { traces, metrics } : undefined;
}
