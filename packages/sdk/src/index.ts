/**
 * @agentd/sdk — what an application needs to build, run, serve and test an agent. The layers beneath
 * (data flowing one way: wire → transport → mcp → loop → triggers → supervisor → serve → agent) stay
 * available as subpaths for advanced use: `@agentd/sdk/model` (the model interface adapters implement),
 * `/wire`, `/transport`, `/mcp`, `/loop`, `/triggers`, `/supervisor`, `/serve`, `/agent`, `/config`, `/store`
 * (packages/sdk/README.md says what each is for).
 *
 * @module @agentd/sdk
 */

// ── The agent: createAgent, from config, serving, subagent children ──
export {
  createAgent,
  createAgentFromConfig,
  modelFromConfig,
  capabilitiesFromConfig,
  newRunId,
  httpServeOptionsFromConfig,
  metricsServeOptionsFromConfig,
  parseListen,
  runSubagentChild,
  isAlreadyDone,
  ALREADY_DONE,
  runStatusOf,
  conversationsFromConfig,
  DocumentConversationStore,
} from "./agent/index.ts";
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
  RunFinish,
  RunFinishOk,
  RunFinishFailed,
  RunStatus,
  AgentLifecycleStatus,
  DrainOptions,
  ReloadReport,
  AgentFromConfigOptions,
  ModelFactory,
  ModelSettings,
  ModelDialectName,
  ServeOptions,
  Serving,
  HttpServeOptions,
  HttpServeSettings,
  AgentTriggerOptions,
  SubagentChildOptions,
  AgentConversations,
  Conversation,
  ConversationRef,
  ConversationStore,
  ConversationSummary,
  ConversationOptions,
} from "./agent/index.ts";

// ── Runs: results, events, budgets, scope, tools ──
export type { RunResult } from "./loop/run-loop.ts";
export type { RunEvent, ToolMode } from "./loop/events.ts";
export { GIVE_UP, type RunFailureReason } from "./loop/run-failure.ts";
export type { RunLimits, ModelPrices, StopReason, BudgetWarning } from "./loop/budget.ts";
export type { RunScope } from "./loop/scope.ts";
export type { ToolSet, ToolDescriptor, ToolCallContext, ToolCallOutcome } from "./loop/tools.ts";

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

// ── Triggers: specs from config or code, their status and outcomes ──
export {
  AgentTriggers,
  triggerSpecsFromConfig,
  validateTriggerSpec,
  checkCronEngine,
  subscriptionTriggerId,
  cronTriggerId,
  INTERVAL_TRIGGER_ID,
} from "./agent/index.ts";
export type {
  TriggerSpec,
  SubscriptionSpec,
  CronSpec,
  IntervalSpec,
  CronEngine,
  TriggerPlan,
  TriggerStatus,
  TriggerState,
  TriggerRunData,
  TriggersStarted,
} from "./agent/index.ts";
export { FileJobStore, MemoryJobStore } from "./triggers/index.ts";
export type { JobStore, RunOutcome, Concurrency } from "./triggers/index.ts";

// ── Configuration: the agentd.json shape (declared types), loading, durations ──
export {
  parseConfig,
  resolveConfig,
  readConfigFile,
  parseDuration,
  durationProblem,
  formatDuration,
  DEFAULT_CONFIG_FILE,
} from "./config/index.ts";
export type { AgentdConfig, McpServerConfig, ModelConfig, ConfigOverrides, ResolvedConfig } from "./config/index.ts";

// ── Errors, each with a string code ──
export { AgentdError, McpError, type LocalErrorCode } from "./wire/errors.ts";
export { ErrorCode } from "./wire/jsonrpc.ts";

// ── MCP: the client and server classes, transports ──
export { McpClient, McpServer, ManagedMcpClient, RUN_ID_META_KEY } from "./mcp/index.ts";
export type {
  CapabilityConfig,
  McpClientOptions,
  McpServerOptions,
  RequestOptions,
  CallToolOptions,
  ReconnectPolicy,
} from "./mcp/index.ts";
export { connectServer, connectManagedServer } from "./agent/index.ts";
export {
  StdioChildTransport,
  StdioServerTransport,
  StreamableHttpClientTransport,
  createStreamableHttpServer,
  MemoryTransport,
} from "./transport/index.ts";
export type { Transport, StreamableHttpServer, StreamableHttpServerOptions, StreamableHttpClientOptions } from "./transport/index.ts";

// ── Subagents ──
export { Supervisor } from "./supervisor/index.ts";
export type { SupervisorOptions } from "./supervisor/index.ts";

// ── The model interface (also `@agentd/sdk/model`) ──
export type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart, ModelMessage, Usage, FinishReason } from "./model/index.ts";

// ── Telemetry ──
export {
  createLogger,
  jsonLinesLogger,
  nullLogger,
  memoryLogger,
  scrubSecrets,
  type Logger,
  type LogLevel,
  type LogRecord,
} from "./log.ts";

// ── OpenTelemetry (loaded lazily, only when OTEL_* configures an exporter) ──
export {
  loadTelemetry,
  type LoadTelemetryOptions,
  type OtelBackend,
  type OtelSignals,
  type RunOrigin,
  type RunTelemetry,
  type Telemetry,
} from "./telemetry/index.ts";
