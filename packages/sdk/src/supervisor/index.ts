/**
 * The supervisor: subagents as child processes of the same program, a private length-prefixed JSON-RPC
 * control channel to each, a handle table (tasks-shaped, snapshot-able), bounded restart, limits, and
 * graded shutdown of whole subtrees. Surfaces: the model's self-tools and the self-MCP's tools/resources.
 * For a child entry of your own: `serveSubagentChild` (or `runSubagentChild` from the root).
 *
 * @module @agentd/sdk/supervisor
 */
export {
  Supervisor,
  subagentCommand,
  SUBAGENT_ENTRY,
  SUPERVISOR_DEFAULTS,
  type SupervisorOptions,
  type SpawnOptions,
} from "./supervisor.ts";
export type {
  FailureReason,
  HandleRecord,
  HandleSnapshot,
  HandleStatus,
  SubagentAnswer,
  SubagentFailure,
  TaskView,
} from "./handle-table.ts";
export { SPAWN_INPUT_SCHEMA, type SpawnRequest } from "./spawn-request.ts";
export type { BackoffOptions } from "./restart-policy.ts";
export { ScopedToolSet } from "./scoped-tool-set.ts";
export { SubagentToolSet } from "./self-tools.ts";
export { SUBAGENT_TOOLS, RESULT_URI_TEMPLATE, resultUri } from "./subagent-tools.ts";
export { registerSubagentSurface } from "./mcp-surface.ts";
export type { ChildCommand } from "./child-attempt.ts";
export { SUBAGENT_API_KEY_ENV, type StartParams, type ChildResult, type SubtreeSettings } from "./control-protocol.ts";
export {
  serveSubagentChild,
  type ChildRunner,
  type ChildRunContext,
  type ChildEndpointOptions,
  type ChildSessionEnd,
} from "./child-endpoint.ts";
export { selfCommand, isCompiledBinary } from "../_internal/self-command.ts";
