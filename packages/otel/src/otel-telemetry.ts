/**
 * The OpenTelemetry backend: a tracer provider and a meter provider exporting OTLP over HTTP (protobuf, or
 * JSON when `OTEL_EXPORTER_OTLP_PROTOCOL` says `http/json`) with the official exporters, configured by the standard `OTEL_*` variables (endpoint, headers,
 * timeout, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BSP_*`).
 * Loaded only through the SDK's `loadTelemetry` (a dynamic import of this package). No provider or context manager is registered globally (only the
 * diag logger, so exporter failures reach our log): spans are parented explicitly, which leaves other
 * OpenTelemetry users in the process alone.
 */
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Logger } from "@agentd/sdk";
import type { OtelSignals, Telemetry } from "@agentd/sdk/telemetry";
import { createRunInstruments } from "./run-metrics.ts";
import { RunSpans } from "./run-spans.ts";

/** Options of {@link createOtelTelemetry}. */
export interface OtelTelemetryOptions {
  /** The signals to export and their encodings (from the SDK's `otelSignalsFromEnv`). */
  signals: OtelSignals;
  /** The `OTEL_*` environment (the exporters read endpoint, headers and timeout from `process.env` themselves). */
  env: Record<string, string | undefined>;
  /** `service.version` of the resource. */
  version?: string;
  /** Where exporter failures are reported (never thrown into a run). */
  logger?: Logger;
}

const SCOPE = "agentd";

/** Build the providers and return the agent-facing telemetry (what `createAgent({ telemetry })` takes). */
export function createOtelTelemetry(options: OtelTelemetryOptions): Telemetry {
  const { signals, env, logger } = options;
  if (logger)
    diag.setLogger(
      {
        error: (m) => logger.warn("otel.error", { message: m }),
        warn: (m) => logger.warn("otel.warning", { message: m }),
        info: () => {},
        debug: () => {},
        verbose: () => {},
      },
      DiagLogLevel.WARN,
    );
  // `agentd` unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise (later merges win).
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "agentd", ...(options.version ? { "service.version": options.version } : {}) }))
    .merge(detectResources({ detectors: [envDetector] }));
  const tracerProvider = signals.traces
    ? new TracerProvider({
        resource,
        spanProcessors: [
          new BatchSpanProcessor({ exporter: signals.tracesProtocol === "http/json" ? new JsonTraceExporter() : new OTLPTraceExporter() }),
        ],
      })
    : undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const meterProvider = signals.metrics
    ? new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({
            exporter: signals.metricsProtocol === "http/json" ? new JsonMetricExporter() : new OTLPMetricExporter(),
            exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : undefined,
          }),
        ],
      })
    : undefined;
  const tracer = tracerProvider?.getTracer(SCOPE, options.version);
  const instruments = meterProvider ? createRunInstruments(meterProvider.getMeter(SCOPE, options.version)) : undefined;
  let stopped: Promise<void> | undefined;
  return {
    run: (run) => new RunSpans(tracer, instruments, run),
    async flush() {
      await Promise.all([tracerProvider?.forceFlush(), meterProvider?.forceFlush()]);
    },
    shutdown() {
      stopped ??= Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]).then(() => {});
      return stopped;
    },
  };
}
