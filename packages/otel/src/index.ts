/**
 * `@agentd/otel`: the OpenTelemetry backend of agentd (tracer and meter providers with the official OTLP/HTTP
 * exporters, protobuf and JSON). Kept out of `@agentd/sdk` so an SDK install carries no OpenTelemetry code: the
 * SDK imports this package only when the `OTEL_*` environment names an endpoint (`loadTelemetry`). Install it
 * beside the SDK to switch telemetry on; the `agentd` binary includes it.
 *
 * @module @agentd/otel
 */
export { createOtelTelemetry, type OtelTelemetryOptions } from "./otel-telemetry.ts";
