/**
 * A2A v1.0 wire types in their JSON form (the proto's JSON mapping: lowerCamelCase field names, enums as
 * their UPPER_SNAKE names, a `oneof` as the one field present), and the JSON-RPC error codes of the spec.
 * Only what agentd's server and client exchange; self-contained so either side can use it.
 */

/** The protocol version this codec speaks (the `A2A-Version` header value). */
export const A2A_VERSION = "1.0";

/** `TaskState` as JSON. */
export type TaskState =
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_REJECTED"
  | "TASK_STATE_AUTH_REQUIRED";

/** States after which a task never changes again. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

/** States in which a task waits for its client (a stream ends there; a blocking send returns). */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"]);

/** `Part`: exactly one of `text`, `raw` (base64), `url`, `data`. */
export interface Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: unknown;
  metadata?: Record<string, unknown>;
  filename?: string;
  mediaType?: string;
}

/** `Message`. */
export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

/** `TaskStatus`; `timestamp` is RFC 3339. */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

/** `Artifact`. */
export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

/** `Task`. */
export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Record<string, unknown>;
}

/** `TaskStatusUpdateEvent`. */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
}

/** `TaskArtifactUpdateEvent`. */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
}

/** `StreamResponse`: one of its four payloads. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** `SendMessageRequest.configuration`. */
export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  returnImmediately?: boolean;
}

/** `AgentSkill`. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
}

/** `AgentInterface`. */
export interface AgentInterface {
  url: string;
  protocolBinding: "JSONRPC" | "HTTP+JSON" | "GRPC";
  protocolVersion: string;
  tenant?: string;
}

/** `SecurityScheme` (the schemes agentd serves with). */
export type SecurityScheme =
  | { httpAuthSecurityScheme: { scheme: string; description?: string; bearerFormat?: string } }
  | { mtlsSecurityScheme: { description?: string } };

/** `AgentCard`. */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: { url: string; organization: string };
  version: string;
  documentationUrl?: string;
  capabilities: { streaming?: boolean; pushNotifications?: boolean; extendedAgentCard?: boolean };
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: { schemes: Record<string, { list?: string[] }> }[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
}

/** JSON-RPC error codes of the A2A specification (§5.4, §10) and the `ErrorInfo` reason of each. */
export const A2A_ERRORS = {
  TaskNotFound: { code: -32001, reason: "TASK_NOT_FOUND" },
  TaskNotCancelable: { code: -32002, reason: "TASK_NOT_CANCELABLE" },
  PushNotificationNotSupported: { code: -32003, reason: "PUSH_NOTIFICATION_NOT_SUPPORTED" },
  UnsupportedOperation: { code: -32004, reason: "UNSUPPORTED_OPERATION" },
  ContentTypeNotSupported: { code: -32005, reason: "CONTENT_TYPE_NOT_SUPPORTED" },
  InvalidAgentResponse: { code: -32006, reason: "INVALID_AGENT_RESPONSE" },
  ExtendedAgentCardNotConfigured: { code: -32007, reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED" },
  ExtensionSupportRequired: { code: -32008, reason: "EXTENSION_SUPPORT_REQUIRED" },
  VersionNotSupported: { code: -32009, reason: "VERSION_NOT_SUPPORTED" },
  /**
   * An authenticated caller without the permission an operation needs. The spec leaves its JSON-RPC code to
   * the implementation ("JSON-RPC custom error", §3.3.2); HTTP+JSON answers 403 PERMISSION_DENIED.
   */
  PermissionDenied: { code: -32050, reason: "PERMISSION_DENIED" },
  ParseError: { code: -32700, reason: "PARSE_ERROR" },
  InvalidRequest: { code: -32600, reason: "INVALID_REQUEST" },
  MethodNotFound: { code: -32601, reason: "METHOD_NOT_FOUND" },
  InvalidParams: { code: -32602, reason: "INVALID_PARAMS" },
  Internal: { code: -32603, reason: "INTERNAL_ERROR" },
} as const;

/** The name of an A2A error. */
export type A2aErrorName = keyof typeof A2A_ERRORS;

/** The `google.rpc.ErrorInfo` type URL carried in error details. */
export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";

/** An A2A error: a name from {@link A2A_ERRORS} and a message. */
export class A2aError extends Error {
  constructor(
    readonly kind: A2aErrorName,
    message: string,
    readonly metadata?: Record<string, string>,
  ) {
    super(message);
    this.name = "A2aError";
  }

  /** The JSON-RPC `error` object: code, message, and the `ErrorInfo` detail. */
  toJsonRpc(): { code: number; message: string; data: Record<string, unknown>[] } {
    const { code, reason } = A2A_ERRORS[this.kind];
    return {
      code,
      message: this.message,
      data: [{ "@type": ERROR_INFO_TYPE, reason, domain: "a2a-protocol.org", metadata: this.metadata }],
    };
  }
}
