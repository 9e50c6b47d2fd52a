/**
 * Telemetry: one structured logger interface used by every layer. Events are named (`run.start`,
 * `tool.call`, `mcp.stderr` …) and carry flat fields. Secrets never go in fields: callers pass ids and
 * sizes, not tokens or whole payloads, and {@link redact} masks anything that looks like a credential.
 */

/** Severity, lowest first. Mirrors the RFC 5424 subset MCP logging uses at the edges. */
export type LogLevel = "debug" | "info" | "warn" | "error";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A structured logger. */
export interface Logger {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every record (e.g. `{ server: "fs" }`, `{ runId }`). */
  child(fields: Record<string, unknown>): Logger;
}

/** A record as delivered to a sink. */
export interface LogRecord {
  ts: string;
  level: LogLevel;
  event: string;
  [field: string]: unknown;
}

const SECRET_KEY = /(authorization|api[-_]?key|token|secret|password|cookie)/i;

/** Mask values of credential-like keys, recursively, so a record can never carry a secret by accident. */
export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (SECRET_KEY.test(k) && v !== undefined && typeof v !== "boolean" && typeof v !== "number") out[k] = "[redacted]";
    else if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Error))
      out[k] = redact(v as Record<string, unknown>);
    else if (v instanceof Error) out[k] = v.message;
    else out[k] = v;
  }
  return out;
}

/** Build a logger over a sink, dropping records below `level`. */
export function createLogger(
  sink: (record: LogRecord) => void,
  options: { level?: LogLevel; fields?: Record<string, unknown> } = {},
): Logger {
  const min = ORDER[options.level ?? "info"];
  const base = options.fields ?? {};
  const log = (level: LogLevel, event: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < min) return;
    sink({ ts: new Date().toISOString(), level, event, ...redact({ ...base, ...fields }) });
  };
  return {
    log,
    debug: (e, f) => log("debug", e, f),
    info: (e, f) => log("info", e, f),
    warn: (e, f) => log("warn", e, f),
    error: (e, f) => log("error", e, f),
    child: (fields) => createLogger(sink, { level: options.level ?? "info", fields: { ...base, ...fields } }),
  };
}

/** A logger that writes one JSON object a line to a writer (stderr by default in the CLI). */
export const jsonLinesLogger = (write: (line: string) => void, level: LogLevel = "info"): Logger =>
  createLogger((r) => write(`${JSON.stringify(r)}\n`), { level });

/** A logger that drops everything. */
export const nullLogger: Logger = createLogger(() => {}, { level: "error" });

/** A logger that keeps records in memory, for tests. */
export function memoryLogger(level: LogLevel = "debug"): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  return Object.assign(createLogger((r) => records.push(r), { level }), { records });
}

/** Whether `level` is at or above `min`. */
export const levelAtLeast = (level: LogLevel, min: LogLevel) => ORDER[level] >= ORDER[min];
