/**
 * `@agentd/sdk/wire`: the MCP message types under the official schema's names (revision 2025-11-25, plus the
 * 2026-07-28 stateless results and the tasks extension), the JSON-RPC envelope, the protocol revisions this
 * build speaks, and the two error classes. Types only besides those: the schemas that check messages, the
 * codecs and the framing are internal. The types are declared interfaces (`types/*.generated.ts`, generated from the
 * valibot schemas and checked equal to them), so importing them costs a consumer's compiler little.
 *
 * @module @agentd/sdk/wire
 */

// ── JSON-RPC ──
export type {
  RequestId,
  JsonValue,
  JsonObject,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResultResponse,
  JsonRpcErrorObject,
  JsonRpcErrorResponse,
  JsonRpcMessage,
} from "./jsonrpc.ts";
export { ErrorCode } from "./jsonrpc.ts";

// ── Errors ──
export { McpError, AgentdError, type LocalErrorCode } from "./errors.ts";

// ── Protocol revisions ──
export {
  SUPPORTED_REVISIONS,
  HANDSHAKE_REVISIONS,
  STATELESS_REVISIONS,
  LATEST_REVISION,
  LATEST_STATELESS_REVISION,
  type ProtocolRevision,
  type HandshakeRevision,
  type StatelessRevision,
} from "./codec.ts";

// ── MCP types, by area ──
export type {
  ProgressToken,
  Cursor,
  Meta,
  RequestMeta,
  RequestParams,
  NotificationParams,
  Result,
  EmptyResult,
  PaginatedRequestParams,
  PaginatedResult,
  Role,
  Annotations,
  Icon,
  Icons,
  BaseMetadata,
  Implementation,
  TaskMetadata,
  TaskAugmentedRequestParams,
  RelatedTaskMetadata,
} from "./types/base.generated.ts";
export type {
  TextContent,
  ImageContent,
  AudioContent,
  Resource,
  ResourceLink,
  ResourceContents,
  TextResourceContents,
  BlobResourceContents,
  TextOrBlobResourceContents,
  EmbeddedResource,
  ContentBlock,
} from "./types/content.generated.ts";
export type { ClientCapabilities, ServerCapabilities } from "./types/capabilities.generated.ts";
export type {
  InitializeRequestParams,
  InitializeResult,
  CancelledNotificationParams,
  ProgressNotificationParams,
} from "./types/lifecycle.generated.ts";
export type {
  ToolJsonSchema,
  ToolAnnotations,
  TaskSupport,
  ToolExecution,
  Tool,
  ListToolsResult,
  CallToolRequestParams,
  CallToolResult,
} from "./types/tools.generated.ts";
export type {
  ResourceTemplate,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ResourceRequestParams,
  ReadResourceRequestParams,
  SubscribeRequestParams,
  UnsubscribeRequestParams,
  ReadResourceResult,
  ResourceUpdatedNotificationParams,
} from "./types/resources.generated.ts";
export type {
  PromptArgument,
  Prompt,
  ListPromptsResult,
  GetPromptRequestParams,
  PromptMessage,
  GetPromptResult,
} from "./types/prompts.generated.ts";
export type { PromptReference, ResourceTemplateReference, CompleteRequestParams, CompleteResult } from "./types/completion.generated.ts";
export type { LoggingLevel, SetLevelRequestParams, LoggingMessageNotificationParams } from "./types/logging.generated.ts";
export type {
  ToolUseContent,
  ToolResultContent,
  SamplingMessageContentBlock,
  SamplingMessage,
  ModelHint,
  ModelPreferences,
  SamplingToolChoice,
  CreateMessageRequestParams,
  CreateMessageResult,
} from "./types/sampling.generated.ts";
export type {
  StringSchema,
  NumberSchema,
  BooleanSchema,
  UntitledSingleSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema,
  SingleSelectEnumSchema,
  MultiSelectEnumSchema,
  EnumSchema,
  PrimitiveSchemaDefinition,
  ElicitRequestFormParams,
  ElicitRequestURLParams,
  ElicitRequestParams,
  ElicitResult,
  ElicitationCompleteNotificationParams,
  URLElicitationRequiredErrorData,
} from "./types/elicitation.generated.ts";
export type { Root, ListRootsResult } from "./types/roots.generated.ts";
export type {
  TaskStatus,
  Task,
  CreateTaskResult,
  GetTaskRequestParams,
  GetTaskPayloadRequestParams,
  CancelTaskRequestParams,
  GetTaskResult,
  CancelTaskResult,
  GetTaskPayloadResult,
  ListTasksResult,
  TaskStatusNotificationParams,
} from "./types/tasks.generated.ts";
export type { ExtensionCreateTaskResult, ExtensionDetailedTask } from "./types/tasks-extension.generated.ts";
export type {
  RequestTypes,
  NotificationTypes,
  RequestMethod,
  NotificationMethod,
  ClientRequestMethod,
  ServerRequestMethod,
  ClientNotificationMethod,
  ServerNotificationMethod,
  RequestParamsOf,
  ResultOf,
  NotificationParamsOf,
  TaskAugmentableMethod,
} from "./types/methods-2025-11-25.generated.ts";
export type { InputRequest, InputRequiredResult, SubscriptionFilter, DiscoverResult } from "./types/methods-2026-07-28.generated.ts";
export type {
  McpRequest,
  McpNotification,
  InitializeRequest,
  PingRequest,
  ListResourcesRequest,
  ListResourceTemplatesRequest,
  ReadResourceRequest,
  SubscribeRequest,
  UnsubscribeRequest,
  ListPromptsRequest,
  GetPromptRequest,
  ListToolsRequest,
  CallToolRequest,
  SetLevelRequest,
  CompleteRequest,
  GetTaskRequest,
  GetTaskPayloadRequest,
  ListTasksRequest,
  CancelTaskRequest,
  CreateMessageRequest,
  ListRootsRequest,
  ElicitRequest,
  InitializedNotification,
  CancelledNotification,
  ProgressNotification,
  TaskStatusNotification,
  RootsListChangedNotification,
  ResourceListChangedNotification,
  ResourceUpdatedNotification,
  PromptListChangedNotification,
  ToolListChangedNotification,
  LoggingMessageNotification,
  ElicitationCompleteNotification,
  ClientRequest,
  ServerRequest,
  ClientNotification,
  ServerNotification,
  ClientResult,
  ServerResult,
  PaginatedRequest,
  URLElicitationRequiredError,
  JSONRPCRequest,
  JSONRPCNotification,
  JSONRPCResultResponse,
  JSONRPCErrorResponse,
  JSONRPCResponse,
  JSONRPCMessage,
} from "./types/messages.ts";
