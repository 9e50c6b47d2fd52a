/**
 * The codec contract: one implementation per MCP protocol revision.
 *
 * Nothing above the wire may assume sessions or `initialize` are universal: the stateless `2026-07-28`
 * revision (no initialize, `server/discover`, `subscriptions/listen`, multi round-trip results) is one more
 * codec behind this same interface, with `stateful: false`.
 */

/** The MCP protocol revisions this build speaks. Newest first. */
export const SUPPORTED_REVISIONS = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** A protocol revision string this build speaks. */
export type ProtocolRevision = (typeof SUPPORTED_REVISIONS)[number];
/** The revisions negotiated with `initialize` ("legacy" in the 2026-07-28 spec's words). Newest first. */
export const HANDSHAKE_REVISIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** A revision negotiated with `initialize`. */
export type HandshakeRevision = (typeof HANDSHAKE_REVISIONS)[number];
/** The revisions carried per request in `_meta`, with no handshake ("modern"). Newest first. */
export const STATELESS_REVISIONS = ["2026-07-28"] as const;
/** A stateless revision. */
export type StatelessRevision = (typeof STATELESS_REVISIONS)[number];
/** The revision we offer first in `initialize` (the newest one that has `initialize`). */
export const LATEST_REVISION: HandshakeRevision = "2025-11-25";
/** The newest stateless revision, offered first in `server/discover` and per-request `_meta`. */
export const LATEST_STATELESS_REVISION: StatelessRevision = "2026-07-28";

/** True when `v` is a revision negotiated with `initialize` that this build speaks. */
export const isHandshakeRevision = (v: unknown): v is HandshakeRevision =>
  typeof v === "string" && (HANDSHAKE_REVISIONS as readonly string[]).includes(v);

/** True when `v` is a stateless revision this build speaks. */
export const isStatelessRevision = (v: unknown): v is StatelessRevision =>
  typeof v === "string" && (STATELESS_REVISIONS as readonly string[]).includes(v);
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

/** A failed check: the `ok: false` arm of {@link CodecResult}. */
export type CodecFailure = Extract<CodecResult, { ok: false }>;

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
  /** Whether request `method` may be answered with an `InputRequiredResult` (stateless revisions). */
  mayRequireInput(method: string): boolean;
  /** Validate the result of a request of `method`. */
  result(method: string, result: unknown): CodecResult;
  /**
   * {@link requestParams} for the hot path: `undefined` when the params are valid as they are (absent params
   * stand for `{}`), else the failure. Allocates nothing for a valid message; the verdict is the same.
   */
  checkRequestParams(method: string, params: unknown): CodecFailure | undefined;
  /** {@link notificationParams} for the hot path, as {@link checkRequestParams}. */
  checkNotificationParams(method: string, params: unknown): CodecFailure | undefined;
  /** {@link result} for the hot path: `undefined` when the result is valid as it is, else the failure. */
  checkResult(method: string, result: unknown): CodecFailure | undefined;
}
