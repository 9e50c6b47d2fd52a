/**
 * The agent: createAgent wires model, MCP clients, tools, subagents, triggers, serving and shutdown.
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
export {
  runStatusOf,
  DEFAULT_HIGH_WATER_MARK,
  type AgentStream,
  type AgentStreamEvent,
  type RunFinish,
  type RunFinishOk,
  type RunFinishFailed,
  type RunStatus,
} from "./agent-stream.ts";
export type { ReloadReport, ReloadPlan, LiveSettings } from "./reload.ts";
export { reloadOnChange, type ReloadOnChange, type ReloadOnChangeOptions } from "./reload-on-change.ts";
export {
  createAgentFromConfig,
  agentOptionsFromConfig,
  modelFromConfig,
  limitsFromConfig,
  capabilityConfigFrom,
  type AgentFromConfigOptions,
  type ModelFactory,
  type ModelSettings,
  type ModelDialectName,
} from "./from-config.ts";
export type { ServeOptions, Serving, HttpServeOptions } from "./serve-agent.ts";
export {
  httpServeOptionsFrom,
  metricsServeOptionsFrom,
  parseListen,
  type HttpServeSettings,
  type MetricsServeSettings,
} from "./serve-options.ts";
export { a2aServeOptionsFrom, serveOptionsFrom, type ServeSettings } from "./serve-from-config.ts";
export type { AgentTriggerOptions } from "./serve-triggers.ts";
export { supervisorFromConfig } from "./subagents-from-config.ts";
export { runSubagentChild, SUBAGENT_INSTRUCTIONS, type SubagentChildOptions } from "./subagent-child.ts";
export { connectServer, connectManagedServer, type ConnectServerOptions } from "./connect-server.ts";
export { tokenStoreFromConfig, type ConfiguredTokenStore } from "./token-store-from-config.ts";
export { McpToolSet, type McpToolSetOptions, type ToolClient } from "./mcp-tool-set.ts";
export type { A2aAgentConfig } from "../a2a/client/tool-set.ts";
export * from "../triggers/runner/index.ts";
