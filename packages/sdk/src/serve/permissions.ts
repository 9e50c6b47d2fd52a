/**
 * What each request of the served surface needs a principal to be allowed: the one table both protocol
 * entries (MCP over HTTP, A2A) consult, with the principal's permissions from `principal.ts`.
 *
 * - `run`: start and steer its own work — `agent.run`, `agent.decide` (the desk checks who may decide), `subagent.spawn` / `cancel`, any other tool, MCP
 *   tasks (`tasks/result`, `tasks/cancel`, `tasks/get`), A2A `SendMessage`, `CancelTask`, push configs.
 * - `status`: read its own work — `resources/*` (`agent://status`, `agent://runs/…`), `tasks/list`,
 *   `subagent.list` / `result` / `wait`, A2A `GetTask`, `ListTasks`, `SubscribeToTask`.
 * - `operator`: see and act on every principal's work. The operator role is this permission; the operator
 *   methods check the role themselves.
 * Everything else (`initialize`, `ping`, `tools/list`, notifications, …) needs nothing.
 */
import type { AuthInfo } from "../transport/http-server/auth.ts";
import { can, type Permission, resolvePrincipal } from "./principal.ts";

const STATUS_TOOLS = new Set(["subagent.list", "subagent.result", "subagent.wait"]);
const STATUS_METHODS = new Set([
  "resources/read",
  "resources/list",
  "resources/templates/list",
  "resources/subscribe",
  "resources/unsubscribe",
  "tasks/list",
]);
const RUN_METHODS = new Set(["tasks/get", "tasks/result", "tasks/cancel"]);

/** The permission an MCP request needs, or undefined when anyone may send it. */
export function mcpPermission(method: string, params: unknown): Permission | undefined {
  if (method === "tools/call") {
    const name = (params as { name?: unknown } | undefined)?.name;
    return typeof name === "string" && STATUS_TOOLS.has(name) ? "status" : "run";
  }
  if (STATUS_METHODS.has(method)) return "status";
  if (RUN_METHODS.has(method)) return "run";
  return undefined;
}

const A2A_STATUS = new Set(["GetTask", "ListTasks", "SubscribeToTask", "GetExtendedAgentCard"]);
const A2A_RUN = new Set([
  "SendMessage",
  "SendStreamingMessage",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
]);

/** The permission an A2A method needs (operator methods check the operator role themselves). */
export function a2aPermission(method: string): Permission | undefined {
  if (A2A_STATUS.has(method)) return "status";
  if (A2A_RUN.has(method)) return "run";
  return undefined;
}

/**
 * The check the HTTP transport runs on every MCP request before it is delivered: the permission the
 * caller lacks for it, or undefined when it may go on.
 */
export function createMcpAuthorizer(
  operators: ReadonlySet<string>,
): (authInfo: AuthInfo | undefined, method: string, params: unknown) => Permission | undefined {
  return (authInfo, method, params) => {
    const needed = mcpPermission(method, params);
    return needed && !can(resolvePrincipal(authInfo, operators), needed) ? needed : undefined;
  };
}
