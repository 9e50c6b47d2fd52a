/**
 * The options, states and events of a {@link ManagedMcpClient}.
 */
import type { Logger } from "../../../log.ts";
import type { Transport } from "../../../transport/types.ts";
import type { Implementation } from "../../../wire/index.ts";
import type { McpClientEvents, McpClientOptions } from "../client.ts";
import type { ReconnectPolicy } from "./backoff.ts";
import type { ManagedMcpClient } from "./managed-client.ts";
import type { LossReason } from "./replay-policy.ts";

/** Options of a {@link ManagedMcpClient}. */
export interface ManagedClientOptions {
  /** The server's configured name (errors, telemetry). */
  name: string;
  /** Builds a fresh transport for every (re)connect. */
  transportFactory: () => Transport;
  clientInfo: Implementation;
  /** Options of each underlying {@link McpClient} (its logger is derived from `logger`). */
  client?: Omit<McpClientOptions, "logger">;
  /** Reconnect pacing: waits drawn from [0, min(maxDelayMs, initialDelayMs·2ⁿ)]. */
  reconnect?: Partial<ReconnectPolicy>;
  /** How long one (re)connect handshake may take (ms, default 30 000). */
  connectTimeoutMs?: number;
  /**
   * Whether server push over HTTP is used (default true at this level; the agent passes false unless
   * reactivity over HTTP is switched on). With false an HTTP server is used request/response only and
   * `supportsSubscribe()` is false, so a subscription trigger on it is reported unavailable.
   */
  push?: boolean;
  /** What {@link ManagedMcpClient.noPushReason} says while push is off (for example, which switch turns it on). */
  pushOffReason?: string;
  logger?: Logger;
}

/** Where a managed client is. */
export type ManagedClientState = "idle" | "connecting" | "connected" | "reconnecting" | "failed" | "closed";

/** Events of a {@link ManagedMcpClient}. */
export interface ManagedClientEvents {
  /** A new connection is up and every subscription was re-sent: re-read what you depend on. */
  reconnected: { attempts: number };
  /** The connection was lost; reconnecting begins. */
  disconnected: { reason: LossReason; error?: string };
  /** Reconnecting gave up after `maxAttempts`; the client stays failed until closed. */
  failed: { attempts: number; error: string };
  resourceUpdated: McpClientEvents["resourceUpdated"];
  resourcesListChanged: void;
  toolsListChanged: void;
  promptsListChanged: void;
  log: McpClientEvents["log"];
  /** `close()` was called. */
  closed: void;
}
