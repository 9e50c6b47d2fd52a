/** Telemetry: OpenTelemetry traces and metrics, loaded only when `OTEL_*` configuration asks for them. */
export { loadTelemetry, type LoadTelemetryOptions, type OtelBackend } from "./load-telemetry.ts";
export { otelSignalsFromEnv, type OtelSignals } from "./otel-env.ts";
export type { RunOrigin, RunTelemetry, Telemetry } from "./types.ts";
