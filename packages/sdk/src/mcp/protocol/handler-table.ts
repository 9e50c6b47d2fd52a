/**
 * Handler tables a {@link Protocol} dispatches to. A peer has its own table (created on its first
 * registration) and may also use a table shared with other peers: every session of one `McpServer` uses
 * the same one, so a server holding thousands of idle sessions keeps one set of handlers, not thousands.
 * Shared handlers find their session through the `peer` argument (`peer.owner`).
 */
import type { McpError } from "../../wire/errors.ts";
import type { Protocol } from "./protocol.ts";
import type { McpNotificationHandler, McpRequestHandler } from "./types.ts";

/** A registered request handler; `custom` methods bypass the codec (see `HandlerOptions`). */
export interface RegisteredRequest {
  handler: McpRequestHandler;
  custom: boolean;
}

/** A registered notification handler. */
export interface RegisteredNotification {
  handler: McpNotificationHandler;
  custom: boolean;
}

/** Handlers and hooks shared by many peers. A peer's own registrations take precedence. */
export interface SharedHandlers {
  requests: ReadonlyMap<string, RegisteredRequest>;
  notifications: ReadonlyMap<string, RegisteredNotification>;
  /** Checked before any inbound request is dispatched (before the codec: it may pick the revision); an error refuses it. */
  gate?: (method: string, peer: Protocol, params: Record<string, unknown> | undefined) => McpError | undefined;
  /** Shapes every result a handler returns before it is sent (the stateless revision adds `resultType` …). */
  finish?: (method: string, result: Record<string, unknown>, peer: Protocol) => Record<string, unknown>;
  /** Called once when a peer's transport closes, after its pending requests were rejected. */
  closed?: (peer: Protocol) => void;
}

/** Requests every peer answers unless it removes the handler: `ping` (an empty result). */
export const BUILTIN_REQUESTS: ReadonlyMap<string, RegisteredRequest> = new Map([["ping", { handler: () => ({}), custom: false }]]);
