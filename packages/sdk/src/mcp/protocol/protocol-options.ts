/**
 * The options, events and defaults of a {@link Protocol} peer, and its settings: what is the same for every
 * session of a server, kept in one record the server makes once (a server may hold thousands of idle sessions,
 * and seven fields a session are ~50 bytes each).
 */
import { nullLogger, type Logger } from "../../log.ts";
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

/**
 * A {@link Protocol}'s settings from its options, defaults applied: one record that every peer made with it
 * refers to (an `McpServer` makes one for all its sessions; a client makes its own).
 */
export interface ProtocolSettings {
  readonly logger: Logger;
  /** How errors name the peer. */
  readonly peer: string;
  readonly shared: SharedHandlers | undefined;
  readonly defaultTimeoutMs: number;
  readonly defaultMaxTotalTimeoutMs: number;
  readonly maxInflight: number;
  readonly gate: ProtocolOptions["gate"];
}

/** The {@link ProtocolSettings} of `options` (their per-peer parts, `owner` and `revision`, are not in it). */
export function protocolSettings(options: ProtocolOptions): ProtocolSettings {
  return {
    logger: options.logger ?? nullLogger,
    peer: options.peerName ?? "peer",
    shared: options.shared,
    defaultTimeoutMs: options.defaultTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    defaultMaxTotalTimeoutMs: options.defaultMaxTotalTimeoutMs ?? DEFAULT_MAX_TOTAL_TIMEOUT_MS,
    maxInflight: options.maxInflightRequests ?? DEFAULT_MAX_INFLIGHT_REQUESTS,
    gate: options.gate,
  };
}

/** Events of a {@link Protocol}. */
export interface ProtocolEvents {
  close: void;
}
