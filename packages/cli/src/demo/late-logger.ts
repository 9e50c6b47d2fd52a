/**
 * A logger bound after its first records. The demo's MCP server is spawned before the CLI (and with it the
 * telemetry set-up) is loaded, so the records of its transport are held until the real logger is bound.
 */
import type { Logger, LogLevel } from "@agentd/sdk";

/** A {@link Logger} that queues records until `bind`, then forwards them and every later one. */
export interface LateLogger extends Logger {
  /** Replay what was queued into `logger`, and send it everything from now on. */
  bind(logger: Logger): void;
}

type Queued = [LogLevel, string, Record<string, unknown>];

/** A logger to bind later. Records never bound are dropped with the process (nothing to write them to). */
export function lateLogger(): LateLogger {
  let bound: Logger | undefined;
  const queued: Queued[] = [];
  const make = (base: Record<string, unknown>): Logger => {
    const log = (level: LogLevel, event: string, fields?: Record<string, unknown>) => {
      const all = { ...base, ...fields };
      if (bound) bound.log(level, event, all);
      else queued.push([level, event, all]);
    };
    return {
      log,
      debug: (event, fields) => log("debug", event, fields),
      info: (event, fields) => log("info", event, fields),
      warn: (event, fields) => log("warn", event, fields),
      error: (event, fields) => log("error", event, fields),
      child: (fields) => make({ ...base, ...fields }),
    };
  };
  return {
    ...make({}),
    bind(logger) {
      bound = logger;
      for (const [level, event, fields] of queued.splice(0)) logger.log(level, event, fields);
    },
  };
}
