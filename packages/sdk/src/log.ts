/**
 * Telemetry: one structured logger interface used by every layer. Events are named (`run.start`,
 * `tool.call`, `mcp.stderr` …) and carry flat fields. Secrets never go in fields: callers pass ids and
 * sizes, not tokens or whole payloads, and {@link redact} masks anything that looks like a credential.
 */
import { maskSecretValues } from "./secret-values.ts";

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

/**
 * Whether a field name names a credential. The name is split into words (camelCase, `-`, `_`): any word
 * like `authorization`, `token`, `secret`, `password`, `cookie`, `credentials`; `api key` / `private key`;
 * or `auth` as the last word (`auth`, `basicAuth` — but not `authMethod`).
 */
function isSecretKey(key: string): boolean {
  let known = secretKeys.get(key);
  if (known === undefined) {
    known = namesSecret(key);
    if (secretKeys.size < 1024) secretKeys.set(key, known);
  }
  return known;
}

// Field names come from a small vocabulary, and every record asks about each of its names: remembered.
const secretKeys = new Map<string, boolean>();

function namesSecret(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (SECRET_WORDS.has(w)) return true;
    if ((w === "api" || w === "private" || w === "access" || w === "refresh") && (words[i + 1] === "key" || words[i + 1] === "token"))
      return true;
  }
  return words.at(-1) === "auth" || words.join("") === "apikey" || words.join("") === "xapikey";
}
const SECRET_WORDS = new Set([
  "authorization",
  "bearer",
  "token",
  "tokens",
  "secret",
  "secrets",
  "password",
  "passwd",
  "passphrase",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "signature",
  "apikey",
]);

// Credential-shaped values, wherever they appear: `Bearer …`, provider keys (`sk-…`, `ghp_…`, `xox…`), JWTs.
const SECRET_VALUE =
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}|\b(sk|rk|pk)-[A-Za-z0-9_-]{12,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bxox[abprs]-[A-Za-z0-9-]{10,}|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g;

/** Mask credential-shaped substrings of a string, and every value registered as a secret (`secret-values.ts`). */
export const scrubSecrets = (s: string): string => {
  const out = s.replace(SECRET_VALUE, (_m, scheme: string | undefined) => (scheme ? `${scheme} [redacted]` : "[redacted]"));
  return maskSecretValues(out);
};

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === "string") return scrubSecrets(v);
  if (v instanceof Error) return scrubSecrets(v.message);
  if (depth > 8 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    // [name, value] header pairs: mask the value when the name is credential-like.
    if (v.length === 2 && typeof v[0] === "string" && isSecretKey(v[0]) && v[1] !== undefined) return [v[0], "[redacted]"];
    return v.map((x) => redactValue(x, depth + 1));
  }
  return redactFields(v as Record<string, unknown>, depth + 1);
}

function redactFields(fields: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (isSecretKey(k) && v !== undefined && v !== null && typeof v !== "boolean" && typeof v !== "number") out[k] = "[redacted]";
    else out[k] = redactValue(v, depth);
  }
  return out;
}

/**
 * Mask values of credential-like keys (recursively, arrays included) and credential-shaped substrings
 * anywhere, so a record can never carry a secret by accident.
 */
export function redact(fields: Record<string, unknown>): Record<string, unknown> {
  return redactFields(fields, 0);
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
  return Object.assign(
    createLogger((r) => records.push(r), { level }),
    { records },
  );
}

/** Whether `level` is at or above `min`. */
export const levelAtLeast = (level: LogLevel, min: LogLevel) => ORDER[level] >= ORDER[min];
