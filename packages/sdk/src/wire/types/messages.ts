/**
 * Whole-message types of revision 2025-11-25 under the official definition names (`CallToolRequest`,
 * `ProgressNotification`, `ClientRequest`, …), derived from the method table. Validation is per part
 * (params, result) in the codecs; these types are for code that builds or handles whole messages.
 */
import type {
  JsonRpcErrorResponse,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResultResponse,
  RequestId,
} from "../jsonrpc.ts";
import type {
  ClientNotificationMethod,
  ClientRequestMethod,
  NotificationMethod,
  NotificationParamsOf,
  RequestMethod,
  RequestParamsOf,
  ResultOf,
  ServerNotificationMethod,
  ServerRequestMethod,
} from "./methods-2025-11-25.generated.ts";
import type { CreateTaskResult } from "./tasks.generated.ts";
import type { EmptyResult, PaginatedRequestParams } from "./base.generated.ts";
import type { URLElicitationRequiredErrorData } from "./elicitation.generated.ts";

/** Requests whose `params` the spec marks optional. */
type OptionalParams = "ping" | "resources/list" | "resources/templates/list" | "prompts/list" | "tools/list" | "tasks/list" | "roots/list";
/** Notifications whose `params` the spec marks optional. */
type OptionalNotificationParams =
  | "notifications/initialized"
  | "notifications/roots/list_changed"
  | "notifications/resources/list_changed"
  | "notifications/prompts/list_changed"
  | "notifications/tools/list_changed";

/** A request message of method `M`. */
export type McpRequest<M extends RequestMethod> = { jsonrpc: "2.0"; id: RequestId; method: M } & (M extends OptionalParams
  ? { params?: RequestParamsOf<M> }
  : { params: RequestParamsOf<M> });
/** A notification message of method `M`. */
export type McpNotification<M extends NotificationMethod> = { jsonrpc: "2.0"; method: M } & (M extends OptionalNotificationParams
  ? { params?: NotificationParamsOf<M> }
  : { params: NotificationParamsOf<M> });

/** `initialize` request. */ export type InitializeRequest = McpRequest<"initialize">;
/** `ping` request. */ export type PingRequest = McpRequest<"ping">;
/** `resources/list` request. */ export type ListResourcesRequest = McpRequest<"resources/list">;
/** `resources/templates/list` request. */ export type ListResourceTemplatesRequest = McpRequest<"resources/templates/list">;
/** `resources/read` request. */ export type ReadResourceRequest = McpRequest<"resources/read">;
/** `resources/subscribe` request. */ export type SubscribeRequest = McpRequest<"resources/subscribe">;
/** `resources/unsubscribe` request. */ export type UnsubscribeRequest = McpRequest<"resources/unsubscribe">;
/** `prompts/list` request. */ export type ListPromptsRequest = McpRequest<"prompts/list">;
/** `prompts/get` request. */ export type GetPromptRequest = McpRequest<"prompts/get">;
/** `tools/list` request. */ export type ListToolsRequest = McpRequest<"tools/list">;
/** `tools/call` request. */ export type CallToolRequest = McpRequest<"tools/call">;
/** `logging/setLevel` request. */ export type SetLevelRequest = McpRequest<"logging/setLevel">;
/** `completion/complete` request. */ export type CompleteRequest = McpRequest<"completion/complete">;
/** `tasks/get` request. */ export type GetTaskRequest = McpRequest<"tasks/get">;
/** `tasks/result` request. */ export type GetTaskPayloadRequest = McpRequest<"tasks/result">;
/** `tasks/list` request. */ export type ListTasksRequest = McpRequest<"tasks/list">;
/** `tasks/cancel` request. */ export type CancelTaskRequest = McpRequest<"tasks/cancel">;
/** `sampling/createMessage` request. */ export type CreateMessageRequest = McpRequest<"sampling/createMessage">;
/** `roots/list` request. */ export type ListRootsRequest = McpRequest<"roots/list">;
/** `elicitation/create` request. */ export type ElicitRequest = McpRequest<"elicitation/create">;

/** `notifications/initialized`. */ export type InitializedNotification = McpNotification<"notifications/initialized">;
/** `notifications/cancelled`. */ export type CancelledNotification = McpNotification<"notifications/cancelled">;
/** `notifications/progress`. */ export type ProgressNotification = McpNotification<"notifications/progress">;
/** `notifications/tasks/status`. */ export type TaskStatusNotification = McpNotification<"notifications/tasks/status">;
/** `notifications/roots/list_changed`. */
export type RootsListChangedNotification = McpNotification<"notifications/roots/list_changed">;
/** `notifications/resources/list_changed`. */
export type ResourceListChangedNotification = McpNotification<"notifications/resources/list_changed">;
/** `notifications/resources/updated`. */
export type ResourceUpdatedNotification = McpNotification<"notifications/resources/updated">;
/** `notifications/prompts/list_changed`. */
export type PromptListChangedNotification = McpNotification<"notifications/prompts/list_changed">;
/** `notifications/tools/list_changed`. */
export type ToolListChangedNotification = McpNotification<"notifications/tools/list_changed">;
/** `notifications/message`. */ export type LoggingMessageNotification = McpNotification<"notifications/message">;
/** `notifications/elicitation/complete`. */
export type ElicitationCompleteNotification = McpNotification<"notifications/elicitation/complete">;

/** Any request a client sends. */
export type ClientRequest = { [M in ClientRequestMethod]: McpRequest<M> }[ClientRequestMethod];
/** Any request a server sends. */
export type ServerRequest = { [M in ServerRequestMethod]: McpRequest<M> }[ServerRequestMethod];
/** Any notification a client sends. */
export type ClientNotification = { [M in ClientNotificationMethod]: McpNotification<M> }[ClientNotificationMethod];
/** Any notification a server sends. */
export type ServerNotification = { [M in ServerNotificationMethod]: McpNotification<M> }[ServerNotificationMethod];
/** Any result a client sends (answers to server requests). */
export type ClientResult = EmptyResult | CreateTaskResult | { [M in ServerRequestMethod]: ResultOf<M> }[ServerRequestMethod];
/** Any result a server sends (answers to client requests). */
export type ServerResult = EmptyResult | CreateTaskResult | { [M in ClientRequestMethod]: ResultOf<M> }[ClientRequestMethod];

/** A list request (`tools/list`, `resources/list`, …) with an optional cursor. */
export type PaginatedRequest = { jsonrpc: "2.0"; id: RequestId; method: string; params?: PaginatedRequestParams };

/** The -32042 error: the request needs the user to complete URL-mode elicitations first. */
export type URLElicitationRequiredError = Omit<JsonRpcErrorResponse, "error"> & {
  error: { code: -32042; message: string; data: URLElicitationRequiredErrorData };
};

// The official envelope names, as aliases of the types `jsonrpc.ts` defines. (`Request`, `Notification` and
// `Error` are not re-exported under those names: they would shadow the platform's globals.)
/** Official name of {@link JsonRpcRequest}. */
export type JSONRPCRequest = JsonRpcRequest;
/** Official name of {@link JsonRpcNotification}. */
export type JSONRPCNotification = JsonRpcNotification;
/** Official name of {@link JsonRpcResultResponse}. */
export type JSONRPCResultResponse = JsonRpcResultResponse;
/** Official name of {@link JsonRpcErrorResponse}. */
export type JSONRPCErrorResponse = JsonRpcErrorResponse;
/** A result or an error response. */
export type JSONRPCResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
/** Official name of {@link JsonRpcMessage}. */
export type JSONRPCMessage = JsonRpcMessage;
