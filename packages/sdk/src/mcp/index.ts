/**
 * The MCP layer: a JSON-RPC protocol engine, the client, the server core, and the capability map that
 * decides what each side declares, answers and refuses.
 */
export { Protocol } from "./protocol.ts";
export { DEFAULT_MAX_INFLIGHT_REQUESTS, DEFAULT_MAX_TOTAL_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS } from "./protocol-options.ts";
export type { ProtocolEvents, ProtocolOptions } from "./protocol-options.ts";
export { TOO_MANY_REQUESTS } from "./inbound-requests.ts";
export type {
  HandlerOptions,
  McpNotificationHandler,
  NotificationOptions,
  Progress,
  RequestContext,
  McpRequestHandler,
  RequestOptions,
} from "./types.ts";
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
export { answersFor, defaultsOf, elicitationPolicy } from "./elicitation-policies.ts";
export type { ElicitationPolicyConfig, ElicitationPolicyName } from "./elicitation-policies.ts";
export { McpClient } from "./client.ts";
export { modernEnvelope, probeEra } from "./client-era.ts";
export type { EraVerdict, ProbeOptions, VersionNegotiation } from "./client-era.ts";
export { MAX_INPUT_ROUNDS, isInputRequired, withInputRounds } from "./client-input.ts";
export { ListenManager } from "./client-listen.ts";
export { CACHEABLE_METHODS, ResultCache } from "./result-cache.ts";
export { acknowledgedFilter, discoverResult, modernResult } from "./server-modern.ts";
export type { Listen } from "./server-modern.ts";
export type { CallToolOptions, McpClientEvents, McpClientOptions } from "./client.ts";
export { McpServer } from "./server.ts";
export type { McpServerOptions } from "./server.ts";
export { ServerSession, isLoggingLevel, resourceNotFound } from "./server-session.ts";
export type { ServerContext, ServerSessionEvents } from "./server-session.ts";
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
} from "./registry.ts";
export { RUN_ID_META_KEY } from "./meta.ts";
export { Emitter } from "./emitter.ts";
export type { Listener, Unsubscribe } from "./emitter.ts";
export { compileUriTemplate } from "./uri-template.ts";
export type { UriTemplate } from "./uri-template.ts";
export { DEFAULT_PAGE_SIZE, paginate } from "./pagination.ts";
export { toolError } from "./tool-catalog.ts";
export { DEFAULT_RECONNECT_POLICY, ManagedMcpClient } from "./managed/index.ts";
export type { LossReason, ManagedClientEvents, ManagedClientOptions, ManagedClientState, ReconnectPolicy } from "./managed/index.ts";
export { PromptList, type PromptSource } from "./prompt-list.ts";
