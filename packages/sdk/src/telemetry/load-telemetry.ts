/**
 * The one door to OpenTelemetry: reads the `OTEL_*` environment and, only when it asks for telemetry,
 * imports the OpenTelemetry backend from the companion package `@agentd/otel` (a dynamic import, so the
 * default path — and the compiled binary's one-shot run — never evaluates it). The SDK itself depends on
 * no OpenTelemetry package: an install that never switches telemetry on carries none of it. When the
 * environment asks for telemetry and the companion is not installed, the agent runs untraced and the log
 * says, in one line, what to install.
 */
import type { Logger } from "../log.ts";
import { otelSignalsFromEnv, type OtelSignals } from "./otel-env.ts";
import type { Telemetry } from "./types.ts";

/** Options of {@link loadTelemetry}. */
export interface LoadTelemetryOptions {
  /** Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** `service.version` of the resource. */
  version?: string;
  /** Where exporter failures are reported (never thrown into a run), and the missing companion package. */
  logger?: Logger;
}

/** What `@agentd/otel` offers the SDK (its one export). */
export interface OtelBackend {
  createOtelTelemetry(options: {
    signals: OtelSignals;
    env: Record<string, string | undefined>;
    version?: string;
    logger?: Logger;
  }): Telemetry;
}

/** The companion package's name, as users install it. */
export const OTEL_PACKAGE = "@agentd/otel";

/** The line logged when `OTEL_*` asks for telemetry and the companion package is not installed. */
export const MISSING_OTEL_MESSAGE = `OTEL_* names an OTLP endpoint but ${OTEL_PACKAGE} is not installed: telemetry is off for this process; install it beside @agentd/sdk (npm install ${OTEL_PACKAGE}) or unset OTEL_EXPORTER_OTLP_ENDPOINT`;

/** True when `error` says the package itself could not be found (not one of its own dependencies). */
function isMissing(error: unknown, name: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  const message = typeof e?.message === "string" ? e.message : "";
  const notFound = e?.code === "ERR_MODULE_NOT_FOUND" || /Cannot find (package|module)/.test(message);
  return notFound && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}

/** {@link loadTelemetry} with the backend's import given (tests pass one that fails). */
export async function loadTelemetryWith(
  importBackend: () => Promise<OtelBackend>,
  options: LoadTelemetryOptions = {},
): Promise<Telemetry | undefined> {
  const env = options.env ?? process.env;
  const signals = otelSignalsFromEnv(env);
  if (!signals) return undefined;
  let backend: OtelBackend;
  try {
    backend = await importBackend();
  } catch (e) {
    if (!isMissing(e, OTEL_PACKAGE)) throw e;
    options.logger?.warn("otel.unavailable", { message: MISSING_OTEL_MESSAGE });
    return undefined;
  }
  return backend.createOtelTelemetry({
    signals,
    env,
    version: options.version || undefined,
    logger: options.logger,
  });
}

/**
 * A literal specifier, so `bun build --compile` bundles the companion into the binary when it is installed.
 * The workspace type check reads the companion's sources and checks them against {@link OtelBackend}; the
 * published build of the SDK's declarations runs before the companion's exist (they import the SDK's types).
 */
const importOtel = (): Promise<OtelBackend> =>
  // biome-ignore lint/suspicious/noTsIgnore: an error only while the SDK's declarations are built, so @ts-expect-error would fail the workspace check
  // @ts-ignore -- resolved in the workspace; absent while the SDK's own declarations are built
  import("@agentd/otel");

/** OpenTelemetry configured from `OTEL_*`, or undefined when the environment does not ask for it (or `@agentd/otel` is not installed). */
export function loadTelemetry(options: LoadTelemetryOptions = {}): Promise<Telemetry | undefined> {
  return loadTelemetryWith(importOtel, options);
}
