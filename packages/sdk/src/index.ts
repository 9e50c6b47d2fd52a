/**
 * @agentd/sdk — what an application needs: build an agent (`createAgent`, with tools written in code by
 * `tool()`), or build it from `agentd.json` (`parseConfig`, `createAgentFromConfig`); run, stream and serve it
 * (methods of `Agent`); catch its errors (`AgentdError`, `McpError`); watch its runs (the event and result
 * types) and route its logs (`createLogger`, `jsonLinesLogger`). Everything else is a building block on a
 * subpath, each a chosen list of names (packages/sdk/README.md says what each is for and where each name went).
 *
 * Layer order (each imports only those before it; `layers.test.ts` checks this line against its table):
 * wire → config → transport → mcp → store → model → loop → a2a client → tool → telemetry → triggers → supervisor → serve → a2a server → agent
 *
 * @module @agentd/sdk
 */

// ── The agent: in code, or from agentd.json ──
export { createAgent, createAgentFromConfig } from "./agent/index.ts";
export type {
  Agent,
  AgentOptions,
  AgentLimits,
  AgentCapabilities,
  AgentServeOptions,
  AgentDurability,
  AgentRunOptions,
  AgentStreamOptions,
  AgentStream,
  AgentStreamEvent,
  AgentFromConfigOptions,
  ModelFactory,
  ServeOptions,
  ServedEndpoint,
  RunFinish,
  RunFinishOk,
  RunFinishFailed,
  RunStatus,
  AgentApprovals,
  AgentConversations,
  Conversation,
  ConversationRef,
} from "./agent/index.ts";
// A tool call waiting for a person's decision (docs/approvals.md): the question and the answer.
export type { ApprovalRequest, ApprovalDecision, ApprovalRule } from "./loop/index.ts";
export { parseConfig } from "./config/index.ts";
export type { AgentdConfig } from "./config/index.ts";
export type { LanguageModel, Usage } from "./model/index.ts";

// ── A run: its result and its events ──
export type { RunResult } from "./loop/run-loop.ts";
export type { RunEvent } from "./loop/events.ts";
export type { StopReason } from "./loop/budget.ts";
export { withLegacyEventNames, type LegacyRunEvent } from "./loop/legacy-events.ts";

// ── Tools defined in code, typed from any Standard Schema validator ──
export { tool } from "./tool/index.ts";
export type {
  LocalTool,
  LocalToolResult,
  LocalTools,
  ToolDefinition,
  ToolReturn,
  StandardSchemaV1,
  StandardJSONSchemaV1,
} from "./tool/index.ts";

// ── Errors, each with a string code ──
export { AgentdError, McpError, type LocalErrorCode } from "./wire/errors.ts";

// ── Logs (the rest of telemetry is `@agentd/sdk/telemetry`) ──
export { createLogger, jsonLinesLogger, type Logger, type LogLevel, type LogRecord } from "./log.ts";

// ── Old names, deprecated: kept one minor version (packages/sdk/README.md, "Renamed") ──
export type { Serving } from "./agent/index.ts"; // deprecated: ServedEndpoint's old name
