/**
 * Whether the standard `OTEL_*` environment asks for telemetry, read without loading any OpenTelemetry
 * code. Telemetry is off unless configured: an OTLP endpoint must be named (`OTEL_EXPORTER_OTLP_ENDPOINT`
 * or the per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT`), and `OTEL_SDK_DISABLED=true` or an
 * exporter of `none` turns a signal off. Only the OTLP exporter over HTTP is offered, in either encoding the
 * spec names for it: `OTEL_EXPORTER_OTLP_PROTOCOL` (or the per-signal `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL`,
 * which wins) is `http/protobuf` (the default) or `http/json`; `grpc` is refused in one line.
 */
import { AgentdError } from "../wire/errors.ts";

/** The OTLP encodings offered (OTLP exporter spec, "Specify Protocol"). */
export type OtlpProtocol = "http/protobuf" | "http/json";

/** The signals to export. */
export interface OtelSignals {
  traces: boolean;
  metrics: boolean;
  /** The encoding of each signal's exports (set when the signal is on). */
  tracesProtocol?: OtlpProtocol;
  metricsProtocol?: OtlpProtocol;
}

/** The protocol a signal's variables ask for; throws one line for grpc or an unknown value. */
function protocolOf(env: Record<string, string | undefined>, signal: "TRACES" | "METRICS"): OtlpProtocol {
  const specific = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const name = set(env[specific]) ? specific : set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ? "OTEL_EXPORTER_OTLP_PROTOCOL" : undefined;
  if (name === undefined) return "http/protobuf";
  const value = env[name]!.trim().toLowerCase();
  if (value === "http/protobuf" || value === "http/json") return value;
  if (value === "grpc")
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `${name}=grpc: agentd exports OTLP over HTTP only: set http/protobuf or http/json and point the endpoint at the collector's OTLP/HTTP port (usually 4318)`,
    );
  throw new AgentdError("E_CONFIG_INVALID", `${name}: expected http/protobuf or http/json, got ${JSON.stringify(env[name])}`);
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
  const traces: boolean = on(env.OTEL_TRACES_EXPORTER, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const metrics: boolean = on(env.OTEL_METRICS_EXPORTER, env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  if (!traces && !metrics) return undefined;
  return {
    traces,
    metrics,
    tracesProtocol: traces ? protocolOf(env, "TRACES") : undefined,
    metricsProtocol: metrics ? protocolOf(env, "METRICS") : undefined,
  };
}
