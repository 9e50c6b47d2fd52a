/**
 * The agentic loop: model interface, tools, budgets.
 *
 * @module @agentd/sdk/loop
 */
export * from "../model/language-model.ts";
export * from "./tools.ts";
export * from "./json-action.ts";
export { runLoop, type RunLoopOptions, type RunResult } from "./run-loop.ts";
export { type RunLimits, type ModelPrices, type StopReason, type BudgetWarning, DEFAULT_MAX_TURNS, costOf } from "./budget.ts";
export type { RunEvent, ToolMode } from "./events.ts";
export { type RunTracer, type TraceCarrier, type TraceSite, isTraceparent, traceCarrierFromMeta } from "./trace-context.ts";
export { compileScope, type RunScope, type ScopeCheck } from "./scope.ts";
export { createToolNameMap, type ToolNameMap, PROVIDER_NAME } from "./tool-names.ts";
export { fenceResourceText, fenceToolOutput, UNTRUSTED_DATA_NOTICE } from "./fence.ts";
export { DEFAULT_MAX_OUTPUT_RETRIES } from "./structured-output.ts";
export { GIVE_UP, type RunFailureReason } from "./run-failure.ts";
