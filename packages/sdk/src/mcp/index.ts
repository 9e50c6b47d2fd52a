/**
 * `@agentd/sdk/mcp`: the MCP client (`McpClient`, and `ManagedMcpClient`, which reconnects and replays), the
 * server core (`McpServer`: tools, resources, prompts, completions, sessions), their options, handler and
 * context types, and the capability switches both take (`CapabilityConfig`). The protocol engine, the
 * capability table, the revision probe, pagination and the other plumbing stay inside.
 *
 * @module @agentd/sdk/mcp
 */

// ── The client ──
export { McpClient } from "./client/client.ts";
export type { CallToolOptions, McpClientEvents, McpClientOptions } from "./client/client.ts";
export type { VersionNegotiation } from "./client/revision-probe.ts";
export { ManagedMcpClient, DEFAULT_RECONNECT_POLICY } from "./client/managed/index.ts";
export type { LossReason, ManagedClientEvents, ManagedClientOptions, ManagedClientState, ReconnectPolicy } from "./client/managed/index.ts";
export { PromptList, type PromptSource } from "./client/prompt-list.ts";
export { elicitationPolicy, type ElicitationPolicyConfig, type ElicitationPolicyName } from "./client/elicitation-policies.ts";

// ── The server ──
export { McpServer } from "./server/server.ts";
export type { McpServerOptions } from "./server/server.ts";
export { ServerSession } from "./server/session.ts";
export type { ServerContext, ServerSessionEvents } from "./server/session.ts";
export type {
  Completer,
  Completers,
  PromptGetter,
  Registered,
  ResourceReader,
  TemplateReader,
  ToolDefinition,
  ToolHandler,
  ToolOptions,
} from "./server/registry.ts";

// ── Both sides: capabilities, requests, run ids ──
export type { CapabilityConfig, ElicitationHandler, ElicitationMode, SamplingHandler } from "./capabilities.ts";
export type {
  HandlerOptions,
  McpNotificationHandler,
  McpRequestHandler,
  NotificationOptions,
  Progress,
  RequestContext,
  RequestOptions,
} from "./protocol/types.ts";
export { RUN_ID_META_KEY } from "./protocol/meta.ts";
