/**
 * Telemetry of triggered runs carries the trigger: a logger wrapper that adds `trigger: <id>` to every
 * record of a run (`run.start`, `model.start`, `tool.call.start`, `run.end` …) while that run is tagged, and
 * to the router's records (`trigger.fire`, which name it `triggerId`). The loop logs with `runId` bound;
 * this asks the agent for that run's trigger (a field of the run in flight), so the loop needs no notion
 * of triggers and no table of tags is kept here.
 */
import type { Logger, LogLevel } from "../../log.ts";

/** The trigger of the run in flight with this id, if it has one. */
export type TriggerOfRun = (runId: string) => string | undefined;

/** Wrap `inner` so records of a triggered run carry its trigger (`triggerOf` names it while the run is in flight). */
export function createRunTriggerTags(inner: Logger, triggerOf: TriggerOfRun): Logger {
  const wrap = (target: Logger, bound: Record<string, unknown>): Logger => {
    const log = (level: LogLevel, event: string, fields?: Record<string, unknown>) => {
      const runId = fields?.runId ?? bound.runId;
      // The router's own records name the trigger `triggerId`: give them the same `trigger` field.
      const own = fields?.triggerId ?? bound.triggerId;
      const trigger = (typeof runId === "string" ? triggerOf(runId) : undefined) ?? (typeof own === "string" ? own : undefined);
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
  return wrap(inner, {});
}
