/**
 * `@agentd/sdk/loop`: the agentic loop on its own (`runLoop`: a model, a `ToolSet`, budgets, scope), the
 * `ToolSet` interface tools are offered through, run events, budgets and the tracing hook. The model interface
 * is `@agentd/sdk/model`.
 *
 * @module @agentd/sdk/loop
 */
export { runLoop, type RunLoopOptions, type RunResult } from "./run-loop.ts";
export type { ToolSet, ToolDescriptor, ToolCallContext, ToolCallOutcome } from "./tools.ts";
export type { RunLimits, ModelPrices, StopReason, BudgetWarning } from "./budget.ts";
export type { RunEvent, ToolMode } from "./events.ts";
export { withLegacyEventNames, type LegacyRunEvent } from "./legacy-events.ts";
export type { RunTracer, TraceCarrier, TraceSite } from "./trace-context.ts";
export type { RunScope } from "./scope.ts";
export type {
  ApprovalRequest,
  ApprovalDecision,
  ApprovalRule,
  ApprovalChannel,
  ApprovalAction,
  MatchedRule,
  NeedsApproval,
  RunApprovals,
  ToolHints,
} from "./approvals/approval-types.ts";
export type { ApprovalDesk, ApprovalViewer, PendingApproval, RecordedDecision } from "./approvals/approval-desk.ts";
export type { PendingToolCall, RunContinuation, RunSuspension } from "./run-suspension.ts";
export { fenceResourceText, fenceToolOutput } from "./fence.ts";
export { GIVE_UP, type RunFailureReason } from "./run-failure.ts";
