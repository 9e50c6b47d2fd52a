/**
 * The one door to OpenTelemetry: reads the `OTEL_*` environment and, only when it asks for telemetry,
 * imports the OpenTelemetry SDK (a dynamic import, so the default path — and the compiled binary's
 * one-shot run — never evaluates it).
 */
import type { Logger } from "../log.ts";
import { otelSignalsFromEnv } from "./otel-env.ts";
import type { Telemetry } from "./types.ts";

/** Options of {@link loadTelemetry}. */
export interface LoadTelemetryOptions {
  /** Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** `service.version` of the resource. */
  version?: string;
  /** Where exporter failures are reported (never thrown into a run). */
  logger?: Logger;
}

/** OpenTelemetry configured from `OTEL_*`, or undefined when the environment does not ask for it. */
export async function loadTelemetry(options: LoadTelemetryOptions = {}): Promise<Telemetry | undefined> {
  const env = options.env ?? process.env;
  const signals = otelSignalsFromEnv(env);
  if (!signals) return undefined;
  const { createOtelTelemetry } = await import("./otel-telemetry.ts");
  return createOtelTelemetry({ signals, env, ...(options.version ? { version: options.version } : {}), ...(options.logger ? { logger: options.logger } : {}) });
}
