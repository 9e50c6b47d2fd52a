/**
 * The shapes an {@link McpClient} is configured and listened to with, apart from the class so that the
 * modules its steps live in (negotiation, inbound handlers) can name them without importing the class;
 * and how a tool call's options become its request's.
 */
import type { Logger } from "../../log.ts";
import type { LoggingLevel } from "../../wire/index.ts";
import type { CapabilityConfig } from "../capabilities.ts";
import { RUN_ID_META_KEY } from "../protocol/meta.ts";
import type { Progress, RequestOptions } from "../protocol/types.ts";
import type { VersionNegotiation } from "./revision-probe.ts";
import type { TaskJournal } from "./task-journal.ts";

/** Options of an {@link McpClient}. */
export interface McpClientOptions {
  /** The deferred-surface switches (capability map). Default: all off. */
  capabilities?: CapabilityConfig;
  logger?: Logger;
  /** The run id sent in `_meta` of every tools/call (default: a random UUID per client). */
  runId?: string;
  /** Default per-request timeout in ms (default 60 000): how long a request may go without a response or progress. */
  requestTimeoutMs?: number;
  /** Default ceiling of one request in ms, progress or not (default one hour). */
  maxTotalTimeoutMs?: number;
  /** Limit on server→client requests handled at once. */
  maxInflightRequests?: number;
  /** The server's configured name: errors say `MCP server 'NAME'` instead of `peer`. */
  serverName?: string;
  /**
   * How the server's revision is found: `"auto"` probes with `server/discover` and speaks 2026-07-28
   * statelessly when the server does, else falls back to `initialize`; `"initialize"` (default, as in the
   * official v2 SDK) goes straight to `initialize` (2025-11-25 and older); `"legacy"` is its older spelling.
   */
  versionNegotiation?: VersionNegotiation;
  /** How long the `server/discover` probe waits before taking silence for a handshake-only server (ms, default 10 000). */
  probeTimeoutMs?: number;
  /** Notes task-augmented calls so a restart with the checkpoint re-attaches to them (see {@link McpClient.taskJournal}). */
  taskJournal?: TaskJournal;
}

/** Events of an {@link McpClient}. */
export interface McpClientEvents {
  resourceUpdated: { uri: string };
  resourcesListChanged: void;
  toolsListChanged: void;
  promptsListChanged: void;
  log: { level: LoggingLevel; logger?: string; data: unknown };
  close: void;
  /** The server asked `roots/list` (emitted as it is answered). */
  rootsListed: void;
}

/** Options of {@link McpClient.callTool}. */
export interface CallToolOptions {
  /** Overrides the client's run id for this call. */
  runId?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxTotalTimeoutMs?: number;
  onprogress?: (progress: Progress) => void;
  /** Extra `_meta` entries. */
  meta?: Record<string, unknown>;
}

/** The options of a call that passes none (shared: read, never written). */
export const NO_CALL_OPTIONS: CallToolOptions = Object.freeze({});
const NO_LIMITS: RequestOptions = Object.freeze({});

/** A `tools/call`'s signal, timeouts and progress as request options (one shared object when it sets none). */
export function toolCallLimits(options: CallToolOptions): RequestOptions {
  const { signal, timeoutMs, maxTotalTimeoutMs, onprogress } = options;
  if (signal === undefined && timeoutMs === undefined && maxTotalTimeoutMs === undefined && onprogress === undefined) return NO_LIMITS;
  return { signal, timeoutMs, maxTotalTimeoutMs, onprogress };
}

/**
 * A `tools/call`'s request options: its timeouts and progress, and the run id in `_meta` — `runMeta`, the
 * client's one frozen object, when the call names no meta or run id of its own.
 */
export function toolCallRequestOptions(options: CallToolOptions, runMeta: Record<string, unknown>, runId: string): RequestOptions {
  return {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxTotalTimeoutMs: options.maxTotalTimeoutMs,
    onprogress: options.onprogress,
    meta: toolCallMeta(options, runMeta, runId),
  };
}

/** A `tools/call`'s `_meta`: the caller's entries and the run id (`runMeta` itself when the call names neither). */
export function toolCallMeta(options: CallToolOptions, runMeta: Record<string, unknown>, runId: string): Record<string, unknown> {
  return options.meta === undefined && options.runId === undefined
    ? runMeta
    : { ...options.meta, [RUN_ID_META_KEY]: options.runId ?? runId };
}
