/**
 * stderr telemetry for the CLI: one JSON object a line when stderr is not a terminal (for log shippers),
 * short readable lines when a person is watching. stdout is never touched here: it carries the result only.
 */
import { createLogger, type LogLevel, type Logger, type LogRecord } from "@agentd/sdk";

const COLORS: Record<LogLevel, string> = { debug: "\x1b[2m", info: "\x1b[36m", warn: "\x1b[33m", error: "\x1b[31m" };

/** Format a record for a person: `12:00:01 info  tool.call fs/read_file (12ms)`. */
export function prettyRecord(r: LogRecord, color: boolean): string {
  const { ts, level, event, ...fields } = r;
  const time = ts.slice(11, 19);
  const rest = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  const lvl = level.padEnd(5);
  return color ? `\x1b[2m${time}\x1b[0m ${COLORS[level]}${lvl}\x1b[0m ${event} \x1b[2m${rest}\x1b[0m` : `${time} ${lvl} ${event} ${rest}`;
}

/** The CLI's stderr logger. `AGENT_LOG_FORMAT=json|pretty` and `AGENT_LOG_LEVEL` override the defaults. */
export function stderrLogger(options: { level?: LogLevel; format?: "json" | "pretty"; write?: (s: string) => void } = {}): Logger {
  const write = options.write ?? ((s: string) => process.stderr.write(s));
  const envFormat = process.env.AGENT_LOG_FORMAT;
  const format = options.format ?? (envFormat === "json" || envFormat === "pretty" ? envFormat : process.stderr.isTTY ? "pretty" : "json");
  const envLevel = process.env.AGENT_LOG_LEVEL as LogLevel | undefined;
  const level = options.level ?? (envLevel && ["debug", "info", "warn", "error"].includes(envLevel) ? envLevel : "info");
  const color = format === "pretty" && process.stderr.isTTY === true && !process.env.NO_COLOR;
  return createLogger((r) => write(format === "json" ? `${JSON.stringify(r)}\n` : `${prettyRecord(r, color)}\n`), { level });
}
