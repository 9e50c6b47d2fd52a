/**
 * The operator channel over A2A: JSON-RPC methods only principals with the operator role may call (the
 * role comes from configuration — operator tokens or `serve.operators` — never from the request), each
 * call logged with its principal. `agentd/status` shows the whole agent (every principal's runs, the
 * triggers, usage, the unfinished A2A tasks); `agentd/cancel` cancels one task of any principal, or all.
 */
import { A2aError } from "../../a2a/types.ts";
import type { Logger } from "../../log.ts";
import type { Principal } from "../principal.ts";
import type { RunRegistry } from "../run-registry.ts";
import type { A2aTasks } from "./tasks.ts";

/** The operator methods' names. */
export const OPERATOR_METHODS: ReadonlySet<string> = new Set(["agentd/status", "agentd/cancel"]);

/** What the operator methods reach. */
export interface OperatorSurface {
  tasks: A2aTasks;
  registry: RunRegistry;
  /** The configured triggers' status. */
  triggers?: () => unknown;
  logger: Logger;
}

/** Run operator method `method` for `who` (UnsupportedOperation unless an operator). */
export async function callOperator(s: OperatorSurface, method: string, params: Record<string, unknown>, who: Principal): Promise<unknown> {
  if (who.role !== "operator") {
    s.logger.warn("a2a.operator.refused", { principal: who.id, method });
    throw new A2aError("UnsupportedOperation", `${method} is for operators: configure this principal (${who.id}) in serve.operators or use an operator token`);
  }
  if (method === "agentd/status") {
    s.logger.info("a2a.operator", { principal: who.id, method });
    return {
      ...s.registry.status(),
      principals: s.registry.principals(),
      ...(s.triggers ? { triggers: s.triggers() } : {}),
      a2aTasks: s.tasks.unfinished().map(({ owner, task }) => ({ principal: owner, id: task.id, contextId: task.contextId, state: task.status.state })),
    };
  }
  // agentd/cancel: { id, principal? } for one task, { all: true } for every unfinished task.
  const targets = s.tasks.unfinished().filter(({ owner, task }) => params.all === true || (task.id === params.id && (params.principal === undefined || params.principal === owner)));
  if (params.all !== true && typeof params.id !== "string") throw new A2aError("InvalidParams", "agentd/cancel takes { id, principal? } or { all: true }");
  if (params.all !== true && targets.length === 0) throw new A2aError("TaskNotFound", `no unfinished task ${String(params.id)}`);
  s.logger.info("a2a.operator", { principal: who.id, method, canceled: targets.length, all: params.all === true });
  return { canceled: targets.map(({ owner, task }) => ({ principal: owner, id: s.tasks.cancel(owner, task.id).id })) };
}
