/**
 * The options, events and defaults of a {@link Protocol} peer.
 */
import type { Logger } from "../../log.ts";
import type { ProtocolRevision } from "../../wire/codec.ts";
import type { McpError } from "../../wire/errors.ts";
import type { SharedHandlers } from "./handler-table.ts";
import type { Protocol } from "./protocol.ts";

/** Default per-request timeout (ms). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default absolute ceiling (ms): the spec asks for a maximum regardless of progress. */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 60 * 60_000;
/**
 * Default limit on inbound requests handled at once. Generous on purpose: a pipelined burst in one write
 * (all dispatched before the first handler resumes) is normal on stdio and must not be refused.
 */
export const DEFAULT_MAX_INFLIGHT_REQUESTS = 1024;

/** Options of a {@link Protocol}. */
export interface ProtocolOptions {
  logger?: Logger;
  /** The revision whose codec validates inbound messages until {@link Protocol.setRevision} (default latest). */
  revision?: ProtocolRevision;
  /** Inbound requests handled at once; past it the peer gets a "too many requests" error (default 1024). */
  maxInflightRequests?: number;
  /** Default per-request timeout in ms (default 60 000). */
  defaultTimeoutMs?: number;
  /** Default absolute ceiling in ms (default one hour). */
  defaultMaxTotalTimeoutMs?: number;
  /**
   * Checked before any inbound request is dispatched; returning an error refuses it (the server session
   * refuses everything but `initialize` and `ping` until it is initialized).
   */
  gate?: (method: string) => McpError | undefined;
  /** Handlers shared with other peers (every session of a server); this peer's own registrations win. */
  shared?: SharedHandlers;
  /** The object this peer belongs to (a server session), for shared handlers to find it. */
  owner?: object;
  /** How errors name the peer, e.g. `MCP server 'fs'` (default `peer`). */
  peerName?: string;
}

/** Events of a {@link Protocol}. */
export interface ProtocolEvents {
  close: void;
}
