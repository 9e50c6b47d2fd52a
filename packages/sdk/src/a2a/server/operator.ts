/**
 * The operator channel over A2A: JSON-RPC methods only principals with the operator role may call (the
 * role comes from configuration — operator tokens or `serve.operators` — never from the request). Anyone
 * else gets PermissionDenied (with its ErrorInfo) and an `a2a.operator.refused` warning; every operator
 * call is one `a2a.operator` line (principal, method, what it did — never a secret or an answer's content).
 *
 * - `agentd/status`: the whole agent (every principal's runs, the triggers, usage, the lifecycle state, the
 *   unfinished A2A tasks).
 * - `agentd/cancel`: one run or task of any principal (`{ id, principal? }`), or every one (`{ all: true }`).
 * - `agentd/drain`: stop taking work, let what is in flight finish (`graceMs` bounds it), stay up; answers
 *   at once with `draining`, or once drained with `{ wait: true }`.
 * - `agentd/pause`, `agentd/resume`: triggers, all or `{ triggers: [ids] }`.
 * - `agentd/reload`: read the configuration again and apply what can change live; reports what changed.
 */
import { A2aError, type AgentSkill } from "../shared/types.ts";
import type { Logger } from "../../log.ts";
import { AgentdError } from "../../wire/errors.ts";
import { scopedRunId, type Principal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { A2aTasks } from "./tasks.ts";

/** The operator methods' names. */
export const OPERATOR_METHODS: ReadonlySet<string> = new Set([
  "agentd/status",
  "agentd/cancel",
  "agentd/drain",
  "agentd/pause",
  "agentd/resume",
  "agentd/reload",
]);

/** What the agent lets its operators do (createAgent provides it). */
export interface OperatorControl {
  /** The agent's lifecycle status (`state`: running, draining, drained). */
  lifecycle(): { state: string; inFlight: number };
  /** Stop taking work and let what is in flight finish (cancel the rest at `graceMs`; Infinity: never); stays up. */
  drain(graceMs: number, reason: string): Promise<void>;
  /** Abort the run in flight with this (agent-side) run id; false when none is. */
  cancelRun(runId: string, reason: string): boolean;
  /** The agent-side ids of the runs in flight. */
  runIds(): string[];
  pauseTriggers(ids?: readonly string[]): Promise<string[]>;
  resumeTriggers(ids?: readonly string[]): Promise<string[]>;
  /** Re-read and apply the configuration; rejects (E_CONFIG_INVALID) keeping the old one. */
  reload(): Promise<unknown>;
}

/** What the operator methods reach. */
export interface OperatorSurface {
  /** The A2A tasks (an agent served without A2A has none). */
  tasks: Pick<A2aTasks, "unfinished" | "cancel">;
  registry: RunRegistry;
  /** The configured triggers' status. */
  triggers?: () => unknown;
  control?: OperatorControl;
  logger: Logger;
}

const skill = (id: string, name: string, description: string): AgentSkill => ({
  id,
  name,
  description,
  tags: ["agentd", "operator"],
  inputModes: ["application/json"],
  outputModes: ["application/json"],
});

/** The operator's skills, listed in the extended card of an operator (each is the JSON-RPC method of its id). */
export const OPERATOR_SKILLS: AgentSkill[] = [
  skill(
    "agentd/status",
    "Agent status",
    "Operators only: every principal's runs, the triggers, usage, the lifecycle state and the unfinished tasks.",
  ),
  skill(
    "agentd/cancel",
    "Cancel runs",
    "Operators only: cancel one run or task of any principal ({ id, principal? }) or every one ({ all: true }).",
  ),
  skill(
    "agentd/drain",
    "Drain",
    "Operators only: stop taking new work, let in-flight runs finish ({ graceMs? } bounds it), then report drained ({ wait: true }).",
  ),
  skill(
    "agentd/pause",
    "Pause triggers",
    "Operators only: pause every trigger, or { triggers: [ids] }; what they would fire meanwhile is not run.",
  ),
  skill(
    "agentd/resume",
    "Resume triggers",
    "Operators only: resume paused triggers (all, or { triggers: [ids] }); each reconciles like a restart.",
  ),
  skill(
    "agentd/reload",
    "Reload configuration",
    "Operators only: re-read and validate the configuration, apply what can change live, report what changed.",
  ),
];

/** Run operator method `method` for `who` (PermissionDenied unless an operator). */
export async function callOperator(s: OperatorSurface, method: string, params: Record<string, unknown>, who: Principal): Promise<unknown> {
  if (who.role !== "operator") {
    s.logger.warn("a2a.operator.refused", { principal: who.id, method });
    throw new A2aError(
      "PermissionDenied",
      `${method} is for operators: configure this principal (${who.id}) in serve.operators or use an operator token`,
    );
  }
  const log = (fields: Record<string, unknown> = {}) => s.logger.info("a2a.operator", { principal: who.id, method, ...fields });
  if (method === "agentd/status") {
    log();
    return {
      ...s.registry.status(),
      principals: s.registry.principals(),
      triggers: s.triggers?.(),
      lifecycle: s.control?.lifecycle(),
      a2aTasks: s.tasks
        .unfinished()
        .map(({ owner, task }) => ({ principal: owner, id: task.id, contextId: task.contextId, state: task.status.state })),
    };
  }
  if (method === "agentd/cancel") return cancel(s, params, log);
  const control = s.control;
  if (!control) throw new A2aError("UnsupportedOperation", `${method} needs the agent's controls (serve the agent with createAgent)`);
  try {
    switch (method) {
      case "agentd/drain": {
        const graceMs = params.graceMs === undefined ? Infinity : params.graceMs;
        if (typeof graceMs !== "number" || !(graceMs >= 0))
          throw new A2aError("InvalidParams", "graceMs must be a number of milliseconds ≥ 0");
        log({ graceMs: graceMs === Infinity ? undefined : graceMs });
        const drained = control.drain(graceMs, `operator ${who.id}`);
        if (params.wait === true) await drained;
        return control.lifecycle();
      }
      case "agentd/pause":
      case "agentd/resume": {
        const ids = triggerIds(params);
        const done = method === "agentd/pause" ? await control.pauseTriggers(ids) : await control.resumeTriggers(ids);
        log({ triggers: done });
        return method === "agentd/pause" ? { paused: done } : { resumed: done };
      }
      default: {
        const report = await control.reload();
        log({ ...(report as Record<string, unknown>) });
        return report;
      }
    }
  } catch (e) {
    if (!AgentdError.isInstance(e)) throw e;
    // A user mistake (an unknown trigger, an invalid configuration) is the caller's to fix: one line.
    s.logger.warn("a2a.operator.failed", { principal: who.id, method, code: e.code, error: e.message });
    throw new A2aError(e.code === "E_CONFIG_INVALID" || e.code === "E_USAGE" ? "InvalidParams" : "UnsupportedOperation", e.message);
  }
}

/** agentd/cancel: A2A tasks first (they end `canceled`), then any other run in flight with that id. */
function cancel(
  s: OperatorSurface,
  params: Record<string, unknown>,
  log: (f: Record<string, unknown>) => void,
): { canceled: { principal?: string; id: string }[] } {
  const all = params.all === true;
  if (!all && typeof params.id !== "string") throw new A2aError("InvalidParams", "agentd/cancel takes { id, principal? } or { all: true }");
  const matches = (owner: string, id: string) =>
    all || (id === params.id && (params.principal === undefined || params.principal === owner));
  const canceled: { principal?: string; id: string }[] = [];
  const taskRuns = new Set<string>();
  for (const { owner, task } of s.tasks.unfinished()) {
    taskRuns.add(scopedRunId({ id: owner, role: "user" }, task.id));
    if (matches(owner, task.id)) canceled.push({ principal: owner, id: s.tasks.cancel(owner, task.id).id });
  }
  const inFlight = new Set(s.control?.runIds() ?? []);
  const reason = "canceled by an operator";
  // Runs recorded by principal (served over MCP, triggered while serving): the agent knows them by their scoped id.
  for (const [owner, { running }] of Object.entries(s.registry.principals()))
    for (const id of running) {
      const runId = scopedRunId({ id: owner, role: "user" }, id);
      if (taskRuns.has(runId) || !matches(owner, id) || !inFlight.delete(runId)) continue;
      if (s.control?.cancelRun(runId, reason)) canceled.push({ principal: owner, id });
    }
  // Direct runs (agent.run in the embedding program) are known by their id alone.
  for (const runId of inFlight)
    if (!taskRuns.has(runId) && (all || (runId === params.id && params.principal === undefined)) && s.control?.cancelRun(runId, reason))
      canceled.push({ id: runId });
  if (!all && canceled.length === 0) throw new A2aError("TaskNotFound", `no unfinished task or run ${String(params.id)}`);
  log({ canceled: canceled.length, all });
  return { canceled };
}

function triggerIds(params: Record<string, unknown>): string[] | undefined {
  const t = params.triggers;
  if (t === undefined) return undefined;
  if (!Array.isArray(t) || t.some((x) => typeof x !== "string"))
    throw new A2aError("InvalidParams", "triggers must be an array of trigger ids (see agentd/status)");
  return t as string[];
}
