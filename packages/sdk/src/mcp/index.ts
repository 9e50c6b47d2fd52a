/**
 * The MCP layer: a JSON-RPC protocol engine, the client, the server core, and the capability map that
 * decides what each side declares, answers and refuses.
 *
 * @module @agentd/sdk/mcp
 */
export { Protocol } from "./protocol/protocol.ts";
export { DEFAULT_MAX_INFLIGHT_REQUESTS, DEFAULT_MAX_TOTAL_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./protocol/protocol-options.ts";
export type { ProtocolEvents, ProtocolOptions } from "./protocol/protocol-options.ts";
export { TOO_MANY_REQUESTS } from "./protocol/inbound-requests.ts";
export type {
  HandlerOptions,
  McpNotificationHandler,
  NotificationOptions,
  Progress,
  RequestContext,
  McpRequestHandler,
  RequestOptions,
} from "./protocol/types.ts";
export {
  CAPABILITY_ITEMS,
  CLIENT_IGNORED_NOTIFICATIONS,
  CLIENT_INBOUND,
  CLIENT_OUTBOUND,
  SERVER_INBOUND,
  clientCapabilities,
  clientOutbound,
  isOn,
  serverCapabilities,
  serverEmitsNotifications,
  toolAvailability,
} from "./capabilities.ts";
export type {
  CapabilityConfig,
  CapabilityItem,
  ElicitationHandler,
  ElicitationMode,
  InboundDecision,
  OutboundDecision,
  SamplingHandler,
  ServerFeatures,
} from "./capabilities.ts";
export { answersFor, defaultsOf, elicitationPolicy } from "./client/elicitation-policies.ts";
export type { ElicitationPolicyConfig, ElicitationPolicyName } from "./client/elicitation-policies.ts";
export { McpClient } from "./client/client.ts";
export { statelessEnvelope, probeRevision } from "./client/revision-probe.ts";
export type { ProbeVerdict, ProbeOptions, VersionNegotiation } from "./client/revision-probe.ts";
export { MAX_INPUT_ROUNDS, isInputRequired, withInputRounds } from "./client/input-required.ts";
export { ListenManager } from "./client/subscriptions-listen.ts";
export { CACHEABLE_METHODS, ResultCache } from "./client/result-cache.ts";
export { acknowledgedFilter, discoverResult, statelessResult } from "./server/stateless-2026-07-28.ts";
export type { Listen } from "./server/stateless-2026-07-28.ts";
export type { CallToolOptions, McpClientEvents, McpClientOptions } from "./client/client.ts";
export { McpServer } from "./server/server.ts";
export type { McpServerOptions } from "./server/server.ts";
export { ServerSession, isLoggingLevel, resourceNotFound } from "./server/session.ts";
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
export { RUN_ID_META_KEY } from "./protocol/meta.ts";
export { Emitter } from "./protocol/emitter.ts";
export type { Listener, Unsubscribe } from "./protocol/emitter.ts";
export { compileUriTemplate } from "./server/uri-template.ts";
export type { UriTemplate } from "./server/uri-template.ts";
export { DEFAULT_PAGE_SIZE, paginate } from "./server/pagination.ts";
export { toolError } from "./client/tool-catalog.ts";
export { DEFAULT_RECONNECT_POLICY, ManagedMcpClient } from "./client/managed/index.ts";
export type { LossReason, ManagedClientEvents, ManagedClientOptions, ManagedClientState, ReconnectPolicy } from "./client/managed/index.ts";
export { PromptList, type PromptSource } from "./client/prompt-list.ts";
