/**
 * Telemetry of triggered runs carries the trigger: a logger wrapper that adds `trigger: <id>` to every
 * record of a run (`run.start`, `model.start`, `tool.call.start`, `run.end` …) while that run is tagged, and
 * to the router's records (`trigger.fire`, which name it `triggerId`). The loop logs with `runId` bound;
 * this looks the run id up, so the loop needs no notion of triggers.
 */
import type { Logger, LogLevel } from "../../log.ts";

/** A logger that tags run records, and the tag table behind it. */
export interface RunTriggerTags {
  /** Give this logger to the agent. */
  logger: Logger;
  /** Records with this run id get `trigger` from now on. */
  tag(runId: string, trigger: string): void;
  untag(runId: string): void;
}

/** Wrap `inner` so records of tagged runs carry their trigger. */
export function createRunTriggerTags(inner: Logger): RunTriggerTags {
  const tags = new Map<string, string>();
  const wrap = (target: Logger, bound: Record<string, unknown>): Logger => {
    const log = (level: LogLevel, event: string, fields?: Record<string, unknown>) => {
      const runId = fields?.runId ?? bound.runId;
      // The router's own records name the trigger `triggerId`: give them the same `trigger` field.
      const own = fields?.triggerId ?? bound.triggerId;
      const trigger = (typeof runId === "string" ? tags.get(runId) : undefined) ?? (typeof own === "string" ? own : undefined);
      target.log(
        level,
        event,
        trigger !== undefined && fields?.trigger === undefined && bound.trigger === undefined ? { ...fields, trigger } : fields,
      );
    };
    return {
      log,
      debug: (e, f) => log("debug", e, f),
      info: (e, f) => log("info", e, f),
      warn: (e, f) => log("warn", e, f),
      error: (e, f) => log("error", e, f),
      child: (fields) => wrap(target.child(fields), { ...bound, ...fields }),
    };
  };
  return {
    logger: wrap(inner, {}),
    tag: (runId, trigger) => void tags.set(runId, trigger),
    untag: (runId) => void tags.delete(runId),
  };
}
