/**
 * An agent's logger: records of a triggered (or tagged) run carry `trigger`, read from the run in flight —
 * the loop itself knows nothing of triggers — and with server notifications on, every record is also mirrored to served clients
 * (`notifications/message`) once the agent serves.
 */
import { createLogger, nullLogger, type Logger, type LogRecord } from "../../log.ts";
import { createRunTriggerTags, type TriggerOfRun } from "../../triggers/runner/run-trigger-tags.ts";

/** The agent's logger, and where served clients' mirror is plugged in. */
export interface AgentLogging {
  logger: Logger;
  /** Mirror every record to this sink from now on (the served host's `mirrorLog`). */
  mirrorTo(sink: (record: LogRecord) => void): void;
}

/** See the module header. */
export function agentLogging(logger: Logger | undefined, serverNotifications: boolean, triggerOf: TriggerOfRun): AgentLogging {
  let mirror: ((record: LogRecord) => void) | undefined;
  const inner = logger ?? nullLogger;
  const base = serverNotifications
    ? createLogger(
        (r) => {
          const { ts: _ts, level, event, ...fields } = r;
          inner.log(level, event, fields);
          mirror?.(r);
        },
        { level: "debug" },
      )
    : inner;
  return {
    logger: createRunTriggerTags(base, triggerOf),
    mirrorTo: (sink) => {
      mirror = sink;
    },
  };
}
