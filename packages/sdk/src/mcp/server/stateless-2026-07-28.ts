/**
 * The stateless ("modern", 2026-07-28) side of a dual-era server: what a session does for a request that
 * carries its protocol version, capabilities and identity in `_meta` instead of an `initialize` handshake.
 *
 * A dual-era server picks the era from how the client opens (versioning spec, "Backward Compatibility"):
 * `initialize` → the negotiated handshake revision for the life of the connection; a request with modern
 * `_meta` → served statelessly, each request on its own. Here live the pieces of the second: the version
 * check (-32022 names what we serve), `server/discover`, the fields every modern result carries
 * (`resultType`, `serverInfo`, caching hints) and `subscriptions/listen`.
 */
import { type McpError, unsupportedProtocolVersion } from "../../wire/errors.ts";
import { isStatelessRevision, SUPPORTED_REVISIONS, type StatelessRevision } from "../../wire/codec.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import type { SubscriptionFilter } from "../../wire/types/methods-2026-07-28.generated.ts";
import type { ServerCapabilities } from "../../wire/index.ts";
import type { McpServer } from "./server.ts";
import type { RequestContext } from "../protocol/types.ts";

/** The protocol version a request's `_meta` names, if any. */
export function requestedVersion(params: Record<string, unknown> | undefined): unknown {
  const meta = params?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[STATELESS_META.protocolVersion] : undefined;
}

/**
 * The modern revision a request asks for, or the error it deserves: -32022 listing every revision we serve
 * when the version is one we do not serve per request (versioning spec, "Protocol Version Negotiation").
 * `undefined` version: not a modern request (left to the codec, which names the missing field).
 */
export function checkStatelessVersion(version: unknown): StatelessRevision | McpError | undefined {
  if (version === undefined) return undefined;
  return isStatelessRevision(version) ? version : unsupportedProtocolVersion(version, SUPPORTED_REVISIONS);
}

/**
 * How long results may be considered fresh, and who may share them (caching spec). Tools, prompts and
 * templates are the same for every caller; the resource list and reads may hold a principal's runs, so they
 * are private. agentd's lists change at run time (list_changed says when), so they are stale at once.
 */
const CACHE_HINTS: Readonly<Record<string, { ttlMs: number; cacheScope: "public" | "private" }>> = {
  "server/discover": { ttlMs: 0, cacheScope: "public" },
  "tools/list": { ttlMs: 0, cacheScope: "public" },
  "prompts/list": { ttlMs: 0, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 0, cacheScope: "public" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/**
 * A handler's result as a modern result: `resultType` (a handler may already have set `input_required`),
 * the server's identity in `_meta`, and caching hints where the spec requires them (complete results only).
 */
export function statelessResult(method: string, result: Record<string, unknown>, server: McpServer): Record<string, unknown> {
  const resultType = result.resultType ?? "complete";
  const meta = { ...(result._meta as Record<string, unknown> | undefined), [STATELESS_META.serverInfo]: server.serverInfo };
  const out: Record<string, unknown> = { ...result, resultType, _meta: meta };
  const hints = resultType === "complete" ? CACHE_HINTS[method] : undefined;
  if (hints !== undefined) {
    if (out.ttlMs === undefined) out.ttlMs = hints.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hints.cacheScope;
  }
  return out;
}

/** The answer to `server/discover`: every revision we serve, newest first, and what we offer now. */
export function discoverResult(server: McpServer): Record<string, unknown> {
  const result: Record<string, unknown> = {
    supportedVersions: [...SUPPORTED_REVISIONS],
    capabilities: server.capabilitiesFor(SUPPORTED_REVISIONS[0]!),
  };
  if (server.options.instructions !== undefined) result.instructions = server.options.instructions;
  return result;
}

/** The part of a listen filter the server honours: what it declared it can notify about (subscriptions spec). */
export function acknowledgedFilter(asked: SubscriptionFilter, caps: ServerCapabilities): SubscriptionFilter {
  const out: SubscriptionFilter = {};
  if (asked.toolsListChanged && caps.tools?.listChanged) out.toolsListChanged = true;
  if (asked.promptsListChanged && caps.prompts?.listChanged) out.promptsListChanged = true;
  if (asked.resourcesListChanged && caps.resources?.listChanged) out.resourcesListChanged = true;
  if (asked.resourceSubscriptions !== undefined && caps.resources?.subscribe) out.resourceSubscriptions = [...asked.resourceSubscriptions];
  return out;
}

/** One open `subscriptions/listen` request: its filter, and how to send on its stream. */
export interface Listen {
  readonly id: RequestId;
  readonly filter: SubscriptionFilter;
  readonly uris: ReadonlySet<string>;
  /** Tasks extension: the tasks whose `notifications/tasks` this listen gets. */
  readonly taskIds?: ReadonlySet<string>;
}

/** Whether a listen asked for `notifications/<kind>/list_changed`. */
export function listensToList(listen: Listen, kind: "tools" | "prompts" | "resources"): boolean {
  const f = listen.filter;
  return kind === "tools"
    ? f.toolsListChanged === true
    : kind === "prompts"
      ? f.promptsListChanged === true
      : f.resourcesListChanged === true;
}

/** `_meta` tagging a notification as part of subscription `id`. */
export const subscriptionMeta = (id: RequestId) => ({ [STATELESS_META.subscriptionId]: id });

/** The per-request log level a modern request asked for (no level: no `notifications/message` at all). */
export function requestLogLevel(ctx: RequestContext): string | undefined {
  const level = ctx.meta[STATELESS_META.logLevel];
  return typeof level === "string" ? level : undefined;
}
