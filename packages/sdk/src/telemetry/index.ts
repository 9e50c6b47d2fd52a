/**
 * `@agentd/sdk/telemetry`: how an agent is observed besides its events — the structured logger (`createLogger`,
 * `jsonLinesLogger`, `nullLogger`, `memoryLogger`) and credential masking for what is logged (`scrubSecrets`),
 * and the OpenTelemetry switch: `loadTelemetry` imports the `@agentd/otel` backend only when `OTEL_*` names an
 * exporter, and `Telemetry` / `RunTelemetry` / `RunOrigin` / `OtelSignals` are the contract that backend
 * implements.
 *
 * @module @agentd/sdk/telemetry
 */
export {
  createLogger,
  jsonLinesLogger,
  nullLogger,
  memoryLogger,
  scrubSecrets,
  type Logger,
  type LogLevel,
  type LogRecord,
} from "../log.ts";
export { loadTelemetry, type LoadTelemetryOptions, type OtelBackend } from "./load-telemetry.ts";
export type { OtelSignals } from "./otel-env.ts";
export type { RunOrigin, RunTelemetry, Telemetry, TracedRun } from "./types.ts";
