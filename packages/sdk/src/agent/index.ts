/** The agent: createAgent wires model, MCP clients, tools, subagents, triggers, serving and shutdown. */
export {
  createAgent,
  newRunId,
  type Agent,
  type AgentOptions,
  type AgentRunOptions,
  type AgentLifecycleStatus,
} from "./create-agent.ts";
export {
  createAgentFromConfig,
  agentOptionsFromConfig,
  modelFromConfig,
  limitsFromConfig,
  capabilityConfigFrom,
  configNamesModel,
  type AgentFromConfigOptions,
  type ModelFactory,
  type ModelSettings,
  type ModelDialectName,
} from "./from-config.ts";
export type { ServeOptions, Serving, HttpServeOptions } from "./serve-agent.ts";
export { httpServeOptionsFrom, parseListen, loadTokens, type HttpServeSettings } from "./serve-options.ts";
export type { AgentTriggerOptions } from "./serve-triggers.ts";
export { supervisorFromConfig, childApiKey } from "./subagents-from-config.ts";
export { runSubagentChild, renderSubagentInput, SUBAGENT_INSTRUCTIONS, type SubagentChildOptions } from "./subagent-child.ts";
export { connectServer, connectManagedServer, managedClientFor, transportFor, upstreamError, CLIENT_INFO, type ConnectServerOptions } from "./connect-server.ts";
export { McpToolSet, splitQualified, type McpToolSetOptions, type ToolClient } from "./mcp-tool-set.ts";
export { renderToolResult } from "./render-content.ts";
export * from "./triggers/index.ts";
