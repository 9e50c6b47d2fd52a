/**
 * stderr telemetry for the CLI: one JSON object a line when stderr is not a terminal (for log shippers),
 * compact readable lines when a person is watching (peers' text in them with control characters escaped). stdout is never touched
 * here: it carries the result only. `AGENT_LOG_FORMAT=json|pretty` and `AGENT_LOG_LEVEL` override.
 */
import { createLogger, type LogLevel, type Logger, type LogRecord } from "@agentd/sdk";
import { forTerminal } from "./terminal-text.ts";

type Fields = Record<string, unknown>;
type Paint = (code: string, s: string) => string;

const BADGE: Record<LogLevel, [text: string, color: string]> = {
  debug: ["DBG", "\x1b[2m"],
  info: ["INF", "\x1b[36m"],
  warn: ["WRN", "\x1b[30;43m"],
  error: ["ERR", "\x1b[97;41m"],
};
/** Fields that identify rather than inform; the JSON format keeps them. */
const QUIET = new Set(["runId", "toolCallId", "argumentsSize"]);
const MAX_VALUE = 120;

const cut = (s: string, n = MAX_VALUE) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const str = (v: unknown) => cut(forTerminal(typeof v === "string" ? v : (JSON.stringify(v) ?? String(v))));
const num = (v: unknown) => (typeof v === "number" ? v : 0);
const plural = (n: unknown, one: string) => `${num(n)} ${one}${num(n) === 1 ? "" : "s"}`;

/** `30ms`, `1.2s`, `2m03s`. */
function duration(ms: unknown): string {
  const n = num(ms);
  if (n < 1000) return `${Math.round(n)}ms`;
  if (n < 60_000) return `${(n / 1000).toFixed(1)}s`;
  const s = Math.round(n / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

function tokens(usage: unknown): string {
  const u = (usage ?? {}) as Fields;
  const split = [
    u.cacheReadTokens !== undefined ? `${num(u.cacheReadTokens)} cached` : "",
    u.cacheWriteTokens !== undefined ? `${num(u.cacheWriteTokens)} cache-written` : "",
    u.reasoningTokens !== undefined ? `${num(u.reasoningTokens)} reasoning` : "",
  ].filter((s) => s !== "");
  return `${num(u.inputTokens)} in / ${num(u.outputTokens)} out tokens${split.length ? ` (${split.join(", ")})` : ""}`;
}

/** How the well-known events read: the fields a summary uses, and the summary. Others print `key=value`. */
const SUMMARIES: Record<string, { keys: string[]; text: (f: Fields, paint: Paint) => string }> = {
  "run.start": {
    keys: ["runId", "model", "provider", "tools", "mode"],
    text: (f) => `${f.runId} · ${f.model} via ${f.provider} · ${plural(f.tools, "tool")} · ${f.mode}`,
  },
  "model.request": { keys: ["turn", "messages"], text: (f) => `turn ${f.turn} · ${plural(f.messages, "message")}` },
  "model.response": {
    keys: ["turn", "usage", "finishReason", "toolCalls"],
    text: (f) => `turn ${f.turn} · ${f.finishReason} · ${plural(f.toolCalls, "tool call")} · ${tokens(f.usage)}`,
  },
  "tool.call": {
    keys: ["turn", "name", "qualifiedName", "arguments"],
    text: (f) => `${f.qualifiedName ?? f.name}${f.arguments !== undefined ? ` ${str(f.arguments)}` : ""}`,
  },
  "tool.result": {
    keys: ["turn", "name", "qualifiedName", "isError", "size", "durationMs"],
    text: (f, paint) =>
      `${f.qualifiedName ?? f.name} ${f.isError ? paint("\x1b[31m", "error") : "ok"} · ${num(f.size)} B · ${duration(f.durationMs)}`,
  },
  "tool.progress": {
    keys: ["turn", "name", "qualifiedName", "progress", "total", "message", "elapsedMs"],
    text: (f) =>
      `${f.qualifiedName ?? f.name} ${f.progress}${f.total !== undefined ? `/${f.total}` : ""}${f.message ? ` · ${cut(String(f.message), 120)}` : ""} · ${duration(f.elapsedMs)}`,
  },
  "run.end": {
    keys: ["runId", "usage", "turns", "toolCalls", "stopReason", "durationMs", "error"],
    text: (f, paint) =>
      `${f.error ? paint("\x1b[31m", `${f.stopReason} (${f.error})`) : f.stopReason} · ${tokens(f.usage)} · ${duration(f.durationMs)} · ` +
      `${plural(f.turns, "turn")} · ${plural(f.toolCalls, "tool call")} · ${f.runId}`,
  },
  "shutdown.draining": { keys: ["signal", "graceMs", "inFlight", "hint"], text: (f) => `${f.signal}: ${f.hint}` },
  "trigger.fire": { keys: ["triggerId", "kind", "runId", "key"], text: (f) => `${f.triggerId} (${f.kind}) → ${f.runId}` },
  "mcp.connected": {
    keys: ["server", "serverName", "protocolVersion"],
    text: (f) => [f.server, f.serverName, f.protocolVersion && `MCP ${f.protocolVersion}`].filter(Boolean).join(" · "),
  },
  "mcp.stderr": { keys: ["server", "line"], text: (f) => `[${f.server}] ${cut(String(f.line ?? "").trimEnd(), 200)}` },
  // What --mcp-config files held that agentd leaves out: whole, since each line says what to do.
  "config.server_skipped": { keys: ["server", "reason"], text: (f) => String(f.reason) },
  "config.server_renamed": { keys: ["server", "reason"], text: (f) => String(f.reason) },
  "config.keys_not_taken": {
    keys: ["file", "tool", "keys", "hint"],
    text: (f) => `${f.file} (${f.tool}): not taken: ${f.keys} — ${f.hint}`,
  },
  "config.key_not_taken": { keys: ["file", "server", "key", "why"], text: (f) => `${f.server}.${f.key} (${f.file}): ${f.why}` },
};

/** The local wall-clock time of an ISO timestamp, `HH:MM:SS`. */
function clock(ts: string): string {
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? ts.slice(11, 19) : d.toTimeString().slice(0, 8);
}

/**
 * Format a record for a person, e.g. `12:00:01 INF tool.result   fs/read_file ok · 412 B · 12ms`.
 * `run.end` shows the stop reason, token usage and duration; unknown events show their fields as `k=v`.
 */
export function prettyRecord(r: LogRecord, color: boolean): string {
  const { ts, level, event, ...raw } = r;
  // Fields carry peers' text (a tool's name, a server's stderr line, an upstream's error): shown escaped,
  // before our own colours are put around it.
  const fields = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === "string" ? forTerminal(v) : v]));
  const paint: Paint = color ? (code, s) => `${code}${s}\x1b[0m` : (_code, s) => s;
  const summary = SUMMARIES[event];
  const used = new Set(summary?.keys ?? []);
  const rest = Object.entries(fields)
    .filter(([k, v]) => v !== undefined && !used.has(k) && !QUIET.has(k))
    .map(([k, v]) => `${k}=${str(v)}`)
    .join(" ");
  const [badge, badgeColor] = BADGE[level] ?? [String(level).toUpperCase().slice(0, 3), ""];
  const parts = [paint("\x1b[2m", clock(ts)), paint(badgeColor, badge), paint("\x1b[1m", event.padEnd(13))];
  if (summary) parts.push(summary.text(fields, paint));
  if (rest) parts.push(paint("\x1b[2m", rest));
  return parts.join(" ").trimEnd();
}

/** The CLI's stderr logger. `AGENT_LOG_FORMAT=json|pretty` and `AGENT_LOG_LEVEL` override the defaults. */
export function stderrLogger(options: { level?: LogLevel; format?: "json" | "pretty"; write?: (s: string) => void } = {}): Logger {
  const write = options.write ?? ((s: string) => process.stderr.write(s));
  const envFormat = process.env.AGENT_LOG_FORMAT;
  const format = options.format ?? (envFormat === "json" || envFormat === "pretty" ? envFormat : process.stderr.isTTY ? "pretty" : "json");
  const envLevel = process.env.AGENT_LOG_LEVEL as LogLevel | undefined;
  const level = options.level ?? (envLevel && ["debug", "info", "warn", "error"].includes(envLevel) ? envLevel : "info");
  if (format === "json") return createLogger((r) => write(`${JSON.stringify(r)}\n`), { level });
  const color = process.stderr.isTTY === true && !process.env.NO_COLOR;
  // The logger filters by level; each record is one compact line (no throttling: every record is a distinct event).
  return createLogger((r) => write(`${prettyRecord(r, color)}\n`), { level });
}
