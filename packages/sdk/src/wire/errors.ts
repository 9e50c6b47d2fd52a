/**
 * Error classes shared by every layer.
 *
 * Two families (STYLE.md): wire errors carry JSON-RPC numeric codes; local errors carry string codes.
 * Each class has a `Symbol.for` marker and a static `isInstance`, so it is recognised across package copies.
 */
import { ErrorCode, type JsonRpcErrorObject } from "./jsonrpc.ts";

const WIRE_MARKER = Symbol.for("agentd.error.wire");
const LOCAL_MARKER = Symbol.for("agentd.error.local");

/** An error that travels as a JSON-RPC error object (code, message, data). */
export class McpError extends Error {
  readonly [WIRE_MARKER] = true;
  override name = "McpError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
  /** True for any McpError, from any copy of this package. */
  static isInstance(e: unknown): e is McpError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[WIRE_MARKER] === true;
  }
  /** The wire form of this error. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
  /** Rebuild from a received error object. */
  static fromError(e: JsonRpcErrorObject): McpError {
    return new McpError(e.code, e.message, e.data);
  }
}

/** -32700: the bytes were not JSON. */
export const parseError = (detail: string) => new McpError(ErrorCode.ParseError, `Parse error: ${detail}`);
/** -32600: JSON, but not a valid JSON-RPC message. */
export const invalidRequest = (detail: string) => new McpError(ErrorCode.InvalidRequest, `Invalid request: ${detail}`);
/** -32601: no such method (or a capability we do not offer). */
export const methodNotFound = (method: string) => new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
/** -32602: params did not validate. */
export const invalidParams = (detail: string) => new McpError(ErrorCode.InvalidParams, `Invalid params: ${detail}`);
/** -32603: the handler failed. The message must not leak internals. */
export const internalError = (detail = "internal error") => new McpError(ErrorCode.InternalError, detail);

/** -32022 (2026-07-28): the requested protocol version is not served; `data` lists what is. */
export const unsupportedProtocolVersion = (requested: unknown, supported: readonly string[]) =>
  new McpError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
    supported: [...supported],
    requested: typeof requested === "string" ? requested : String(requested),
  });

/** Local error codes (string), one per failure a caller may want to tell apart. */
export type LocalErrorCode =
  | "E_CONFIG_INVALID"
  | "E_USAGE"
  | "E_TIMEOUT"
  | "E_ABORTED"
  | "E_CONNECTION_CLOSED"
  | "E_SESSION_EXPIRED"
  | "E_TRANSPORT"
  | "E_FRAME_TOO_LARGE"
  | "E_PROTOCOL_VERSION"
  | "E_CAPABILITY"
  | "E_UNAUTHORIZED"
  | "E_UPSTREAM"
  | "E_BUDGET_TURNS"
  | "E_BUDGET_TOKENS"
  | "E_BUDGET_DEADLINE"
  | "E_BUDGET_COST"
  | "E_RUN_FAILED"
  | "E_SCOPE"
  | "E_TOOL"
  | "E_SUPERVISOR"
  | "E_STORE"
  | "E_STORE_LOCKED";

/** A local error: something went wrong on this side, named by a string code. */
export class AgentdError extends Error {
  readonly [LOCAL_MARKER] = true;
  override name = "AgentdError";
  constructor(
    readonly code: LocalErrorCode,
    message: string,
    readonly options: { cause?: unknown; retryable?: boolean; data?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
  /** Whether retrying the same operation may succeed. */
  get retryable(): boolean {
    return this.options.retryable ?? false;
  }
  /** True for any AgentdError, from any copy of this package. */
  static isInstance(e: unknown): e is AgentdError {
    return typeof e === "object" && e !== null && (e as Record<symbol, unknown>)[LOCAL_MARKER] === true;
  }
}
