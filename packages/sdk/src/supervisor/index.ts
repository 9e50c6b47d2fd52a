/**
 * The supervisor: subagents as child processes of the same program, a private length-prefixed JSON-RPC
 * control channel to each, a handle table (tasks-shaped, snapshot-able), bounded restart, limits, and
 * graded shutdown of whole subtrees. Surfaces: the model's self-tools and the self-MCP's tools/resources.
 */
export { Supervisor, subagentCommand, SUBAGENT_ENTRY, SUPERVISOR_DEFAULTS, type SupervisorOptions, type SpawnOptions } from "./supervisor.ts";
export {
  HandleTable,
  isTerminal,
  newHandleId,
  toTask,
  type FailureReason,
  type HandleListener,
  type HandleRecord,
  type HandleSnapshot,
  type HandleStatus,
  type SpawnPayload,
  type SubagentAnswer,
  type SubagentFailure,
  type TaskView,
} from "./handle-table.ts";
export { buildSpawnPayload, serversInScope, globMayMatchServer, SPAWN_INPUT_SCHEMA, type SpawnRequest, type ParentBounds } from "./spawn-request.ts";
export { restartDelay, remainingLimits, type BackoffOptions, type LimitTrip } from "./restart-policy.ts";
export { ScopedToolSet } from "./scoped-tool-set.ts";
export { SubagentToolSet, createSubagentToolSet } from "./self-tools.ts";
export { SUBAGENT_TOOLS, RESULT_URI_TEMPLATE, resultUri, handleView, answerFor, callSubagentTool, type SubagentToolAnswer } from "./subagent-tools.ts";
export { registerSubagentSurface } from "./mcp-surface.ts";
export { ChildAttempt, type AttemptEnd, type ChildCommand } from "./child-attempt.ts";
export { ControlChannel, type ControlIO, type ControlChannelOptions, type ControlRequestHandler } from "./control-channel.ts";
export { streamControlIO, openInheritedControlIO, CONTROL_FD } from "./control-pipe.ts";
export {
  CONTROL,
  CONTROL_PROTOCOL_VERSION,
  SUBAGENT_API_KEY_ENV,
  parseStartParams,
  type StartParams,
  type ChildResult,
  type ChildErrorData,
  type ProgressParams,
  type SubtreeSettings,
} from "./control-protocol.ts";
export { serveSubagentChild, CHILD_RUN_FAILED, type ChildRunner, type ChildRunContext, type ChildEndpointOptions, type ChildSessionEnd } from "./child-endpoint.ts";
export { ProgressMeter } from "./progress-meter.ts";
