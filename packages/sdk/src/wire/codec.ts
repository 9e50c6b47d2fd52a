/**
 * The codec contract: one implementation per MCP protocol revision.
 *
 * Nothing above the wire may assume sessions or `initialize` are universal: the stateless `2026-07-28`
 * revision (no initialize, `server/discover`, `subscriptions/listen`, multi round-trip results) will be one
 * more codec behind this same interface, with `stateful: false`.
 */

/** The MCP protocol revisions this build speaks. Newest first. */
export const SUPPORTED_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** A protocol revision string this build speaks. */
export type ProtocolRevision = (typeof SUPPORTED_REVISIONS)[number];
/** The revision we offer first. */
export const LATEST_REVISION: ProtocolRevision = "2025-11-25";
/** The revision a Streamable HTTP server assumes when `MCP-Protocol-Version` is absent (transport spec). */
export const DEFAULT_HTTP_REVISION: ProtocolRevision = "2025-03-26";

/** True when `v` is a revision this build speaks. */
export const isSupportedRevision = (v: unknown): v is ProtocolRevision =>
  typeof v === "string" && (SUPPORTED_REVISIONS as readonly string[]).includes(v);

/** The outcome of validating one message part. Errors are data: the protocol layer picks the JSON-RPC code. */
export type CodecResult<T = Record<string, unknown>> =
  | { ok: true; value: T }
  /** `unknown`: the method is not part of this revision (→ -32601); otherwise the shape is wrong (→ -32602). */
  | { ok: false; unknown: boolean; message: string };

/** Per-revision validation of MCP params and results, keyed by method name. */
export interface McpCodec {
  /** The revision this codec implements. */
  readonly revision: ProtocolRevision;
  /** Whether JSON-RPC batches (arrays) are allowed. Only `2025-03-26` allows them. */
  readonly batches: boolean;
  /** Whether this revision has `initialize` and sessions. */
  readonly stateful: boolean;
  /** Whether `method` is a request defined by this revision (either direction). */
  knowsRequest(method: string): boolean;
  /** Whether `method` is a notification defined by this revision (either direction). */
  knowsNotification(method: string): boolean;
  /** Validate the params of a request of `method`. Params may be undefined (treated as `{}`). */
  requestParams(method: string, params: unknown): CodecResult;
  /** Validate the params of a notification of `method`. */
  notificationParams(method: string, params: unknown): CodecResult;
  /** Validate the result of a request of `method`. */
  result(method: string, result: unknown): CodecResult;
}
