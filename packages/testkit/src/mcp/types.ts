/**
 * What a fake MCP server is made of, and what it records.
 *
 * A spec is plain JSON (so the same spec drives an in-memory server and a real stdio child), plus a few
 * code-only hooks (`handler`, `read`, `get`) that only an in-process server can run.
 */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  LoggingLevel,
  PromptArgument,
  ReadResourceResult,
  RequestId,
  Tool,
} from "@agentd/sdk/wire";
import type { CapabilityConfig, ServerContext } from "@agentd/sdk/mcp";

/** One progress notification a tool sends (only when the caller sent a `progressToken`). */
export interface ProgressStep {
  progress: number;
  total?: number;
  message?: string;
  /** Wait this long before sending the step (ms). Cancellation interrupts the wait. */
  delayMs?: number;
}

/** A `notifications/message` a tool sends while it runs (the client must allow the level). */
export interface LogStep {
  level: LoggingLevel;
  data: unknown;
  logger?: string;
}

/**
 * A tool. Behaviour, in order: `logs`, `progress`, `delayMs`, then the outcome — `crash`, `hang`,
 * `clientRequest`, `handler`, `result`, `text` — first one set wins; none set echoes the arguments as text.
 */
export interface FakeToolSpec {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Tool["inputSchema"];
  outputSchema?: Tool["outputSchema"];
  annotations?: Tool["annotations"];
  execution?: Tool["execution"];
  /** A text result; `{{arg}}` is replaced by the call's argument `arg` (JSON for non-strings). */
  text?: string;
  /** The exact result to answer with. */
  result?: CallToolResult;
  /** Mark the `text` (or `result`) as a tool-domain error (`isError: true`). */
  isError?: boolean;
  /** Wait this long before answering (ms). Cancellation interrupts the wait. */
  delayMs?: number;
  progress?: ProgressStep[];
  logs?: LogStep[];
  /** Die mid-call: a stdio child exits (code 1 unless given); in memory the session's transport closes. */
  crash?: boolean | { exitCode?: number };
  /** Never answer; the cancellation (`notifications/cancelled`) is recorded with `interrupted: true`. */
  hang?: boolean;
  /**
   * Send this request to the client (e.g. `roots/list`, `sampling/createMessage`, `elicitation/create`) and
   * answer with the client's reply as JSON text: `{"result":…}`, or `{"error":{code,message}}` with `isError`.
   */
  clientRequest?: { method: string; params?: Record<string, unknown> };
  /** Code only: compute the result. Throwing gives an `isError` result; throwing `McpError` a JSON-RPC error. */
  handler?: (args: Record<string, unknown>, ctx: ServerContext) => CallToolResult | Promise<CallToolResult>;
}

/** Content of a resource: text, or `{ blob }` (base64). */
export type FakeResourceContent = string | { text: string; mimeType?: string } | { blob: string; mimeType?: string };

/** A fixed resource. Its content can be changed at run time with `setResource`. */
export interface FakeResourceSpec {
  uri: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  text?: string;
  /** Base64 bytes (a binary resource). */
  blob?: string;
}

/** A resource template (`{var}` per RFC 6570 level 1–2). `text` may use `{{var}}`. */
export interface FakeResourceTemplateSpec {
  uriTemplate: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  /** Completion values per variable (filtered by prefix, case-insensitive). */
  complete?: Record<string, string[]>;
  /** Code only: compute the contents. */
  read?: (uri: string, variables: Record<string, string>, ctx: ServerContext) => ReadResourceResult | Promise<ReadResourceResult>;
}

/** One message of a prompt: text (with `{{arg}}` substitution) or any content block. */
export type FakePromptMessage = { role: "user" | "assistant"; text: string } | { role: "user" | "assistant"; content: ContentBlock };

/** A prompt. Without `messages` it answers one user message naming its arguments. */
export interface FakePromptSpec {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  messages?: FakePromptMessage[];
  /** Completion values per argument (filtered by prefix, case-insensitive). */
  complete?: Record<string, string[]>;
  /** Code only: compute the prompt. */
  get?: (args: Record<string, string>, ctx: ServerContext) => GetPromptResult | Promise<GetPromptResult>;
}

/** A whole fake server. Every list is optional. */
export interface FakeMcpServerSpec {
  /** `serverInfo.name` (default `"fake-mcp-server"`). */
  name?: string;
  version?: string;
  instructions?: string;
  tools?: FakeToolSpec[];
  resources?: FakeResourceSpec[];
  resourceTemplates?: FakeResourceTemplateSpec[];
  prompts?: FakePromptSpec[];
  /**
   * Capability switches. Default: prompts, completion and server notifications (logging, progress) ON —
   * a fake server offers everything it is given. Set one to `false` to act like a v1 server.
   */
  capabilities?: Pick<CapabilityConfig, "prompts" | "completion" | "serverNotifications">;
  /** Items per page of every list (default 100). */
  pageSize?: number;
}

/** A request the server received, exactly as it arrived (params include `_meta`). */
export interface RecordedRequest {
  /** The session (connection) it arrived on. */
  session: string;
  id: RequestId;
  method: string;
  params: Record<string, unknown>;
  /** `params._meta`, or `{}` (e.g. `meta["agentd.dev/run-id"]`, `meta.progressToken`). */
  meta: Record<string, unknown>;
  /** Arrival time (ms since the epoch). */
  at: number;
}

/** A notification the server received. */
export interface RecordedNotification {
  session: string;
  method: string;
  params: Record<string, unknown>;
  at: number;
}

/** A `notifications/cancelled` the server received. */
export interface RecordedCancellation {
  session: string;
  requestId: RequestId;
  reason?: string;
  /** The method of the cancelled request, when it was recorded. */
  method?: string;
  /** The tool, when the cancelled request was a `tools/call`. */
  tool?: string;
  /** True once a running fake tool (hang, delay, progress) stopped because of it. */
  interrupted: boolean;
  at: number;
}
