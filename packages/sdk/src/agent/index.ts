/**
 * `@agentd/sdk/agent`: the whole agent — `createAgent` wires the model, MCP clients, tools, subagents,
 * triggers, serving and shutdown; `createAgentFromConfig` builds it from the `agentd.json` shape, and the
 * `…FromConfig` helpers build its parts the same way (for a program that assembles some of them itself);
 * live reload; the subagent child's entry; connecting one configured MCP server.
 *
 * @module @agentd/sdk/agent
 */
export {
  createAgent,
  newRunId,
  type Agent,
  type AgentOptions,
  type AgentLimits,
  type AgentCapabilities,
  type AgentServeOptions,
  type AgentDurability,
  type AgentRunOptions,
  type AgentLifecycleStatus,
  type DrainOptions,
  type AgentStreamOptions,
} from "./create-agent.ts";
export type { AgentApprovals } from "./types/agent-options.ts";
export {
  runStatusOf,
  type AgentStream,
  type AgentStreamEvent,
  type RunFinish,
  type RunFinishOk,
  type RunFinishFailed,
  type RunStatus,
} from "./run/agent-stream.ts";
export type { Run, RunOrigin, RunOutcome, RunState, RunTransition } from "./run/run.ts";
export type { ApprovalDecisions, ResumeOptions } from "./run/resume-run.ts";
export type { ReloadReport, ReloadPlan, LiveSettings } from "./live/reload.ts";
export type {
  Conversation,
  ConversationRef,
  ConversationStore,
  ConversationSummary,
  VersionedConversation,
} from "./conversations/conversation.ts";
export type { AgentConversations, OwnerOptions } from "./conversations/agent-conversations.ts";
export { DEFAULT_MAX_TOKENS, type ConversationOptions } from "./conversations/conversation-run.ts";
export {
  DocumentConversationStore,
  DEFAULT_BOUNDS as DEFAULT_CONVERSATION_BOUNDS,
  type ConversationBounds,
  type DocumentStore,
} from "./conversations/document-conversations.ts";
export { localConversationsDir } from "./conversations/local-documents.ts";
export { trimConversation, type TrimBounds, type Trimmed } from "./conversations/trim-conversation.ts";
export { SUMMARY_MARK, type ConversationSummaryReport, type GrowthPolicy } from "./conversations/summarise-conversation.ts";
export { conversationsFromConfig } from "./from-config/conversations-from-config.ts";
export { approvalDeskFromConfig, localApprovalsDir } from "./from-config/approvals-from-config.ts";
export { reloadOnChange, type ReloadOnChange, type ReloadOnChangeOptions } from "./live/reload-on-change.ts";

// ── From config: the agent, and its parts, each `…FromConfig(config)` ──
export { createAgentFromConfig } from "./create-agent-from-config.ts";
export {
  agentOptionsFromConfig,
  modelFromConfig,
  limitsFromConfig,
  capabilitiesFromConfig,
  type AgentFromConfigOptions,
  type ModelFactory,
  type ModelSettings,
  type ModelDialectName,
} from "./from-config/from-config.ts";
export {
  httpServeOptionsFromConfig,
  metricsServeOptionsFromConfig,
  parseListen,
  type HttpServeSettings,
  type MetricsServeSettings,
} from "./from-config/serve-options-from-config.ts";
export { a2aServeOptionsFromConfig, serveOptionsFromConfig, type ServeSettings } from "./from-config/serve-from-config.ts";
export { supervisorFromConfig } from "./from-config/subagents-from-config.ts";
export { tokenStoreFromConfig, type ConfiguredTokenStore } from "./from-config/token-store-from-config.ts";
export {
  triggerSpecsFromConfig,
  checkCronEngine,
  validateTriggerSpec,
  subscriptionTriggerId,
  cronTriggerId,
  INTERVAL_TRIGGER_ID,
  type CronEngine,
  type TriggerSpec,
  type SubscriptionSpec,
  type CronSpec,
  type IntervalSpec,
  type TriggerPlan,
} from "../triggers/runner/trigger-specs.ts";

// ── Serving, triggers, subagent children ──
export type { ServeOptions, ServedEndpoint, HttpServeOptions } from "./serving/served-agent.ts";
export type { AgentTriggerOptions } from "./live/configured-triggers.ts";
export { AgentTriggers, type AgentTriggersOptions, type TriggersStarted } from "../triggers/runner/agent-triggers.ts";
export { isAlreadyDone, ALREADY_DONE, type TriggerRunData } from "../triggers/runner/trigger-runner.ts";
export type { TriggerStatus, TriggerState } from "../triggers/runner/trigger-status.ts";
export { runSubagentChild, SUBAGENT_INSTRUCTIONS, type SubagentChildOptions } from "./subagent-child.ts";

// ── MCP servers and agents the agent reaches ──
export { connectServer, connectManagedServer, type ConnectServerOptions } from "./connections/connect-server.ts";
export { McpToolSet, type McpToolSetOptions, type ToolClient } from "./tools/mcp-tool-set.ts";
export type { A2aAgentConfig } from "../a2a/client/tool-set.ts";

// ── Old names, deprecated: kept one minor version (packages/sdk/README.md, "Renamed") ──
export type { Serving } from "./types/deprecated-names.ts";
