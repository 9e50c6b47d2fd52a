/**
 * The supervisor: subagents as child processes of the same program, a private length-prefixed JSON-RPC
 * control channel to each, a handle table (tasks-shaped, snapshot-able), bounded restart, limits, and
 * graded shutdown of whole subtrees. For a child entry of your own: `serveSubagentChild` (or `runSubagentChild`
 * from the root). How to run this program again is `selfCommand` (`@agentd/sdk/transport`).
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
export type { SpawnRequest } from "./spawn-request.ts";
export type { BackoffOptions } from "./restart-policy.ts";
export type { ChildCommand } from "./child-attempt.ts";
export { SUBAGENT_API_KEY_ENV, type StartParams, type ChildResult, type SubtreeSettings } from "./control-protocol.ts";
export {
  serveSubagentChild,
  type ChildRunner,
  type ChildRunContext,
  type ChildEndpointOptions,
  type ChildSessionEnd,
} from "./child-endpoint.ts";
