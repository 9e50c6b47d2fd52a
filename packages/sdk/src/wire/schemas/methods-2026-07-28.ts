/**
 * Method table of revision 2026-07-28, the first stateless ("modern") revision, as differences from
 * 2025-11-25 (checked against the official JSON Schema of each revision):
 * - no `initialize` / `notifications/initialized` / `ping` / `logging/setLevel`; every request carries its
 *   protocol version and client capabilities in `_meta` (`io.modelcontextprotocol/protocolVersion`,
 *   `…/clientCapabilities`, optionally `…/clientInfo` and the per-request `…/logLevel`);
 * - `server/discover` and `subscriptions/listen` (+ `notifications/subscriptions/acknowledged`) replace
 *   the handshake, `resources/subscribe`/`unsubscribe` and the HTTP GET stream;
 * - no server→client requests: `tools/call`, `resources/read` and `prompts/get` may answer with an
 *   `InputRequiredResult` whose `inputRequests` the client answers by retrying with `inputResponses`;
 * - every result carries `resultType`; list/read/discover results carry `ttlMs` and `cacheScope`;
 * - tasks left the core for the tasks extension (`tasks-extension.ts`: its methods ride along as `extensions`,
 *   answered only when negotiated), as did `notifications/elicitation/complete` and `notifications/roots/list_changed`;
 *   URL elicitation has no `elicitationId`.
 * Results are checked with `resultType`, `ttlMs` and `cacheScope` optional: a client MUST treat an absent
 * `resultType` as `"complete"` (basic spec, "ResultType"), and what we emit is checked against the official
 * schema in tests instead.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { ImplementationSchema, IntegerSchema, MetaSchema, ProgressTokenSchema, RequestIdSchema } from "./base.ts";
import { ClientCapabilitiesSchema, ServerCapabilitiesSchema } from "./capabilities.ts";
import { LoggingLevelSchema } from "./logging.ts";
import { ElicitRequestFormParamsSchema, ElicitResultSchema } from "./elicitation.ts";
import { CreateMessageRequestParamsSchema, CreateMessageResultSchema } from "./sampling.ts";
import { ListRootsResultSchema } from "./roots.ts";
import { requests_2025_11_25, notifications_2025_11_25 } from "./methods-2025-11-25.ts";
import { type AnySchema, lazyTable, type RequestSpec, type RevisionTable } from "./method-table.ts";
import { STATELESS_META } from "./stateless-meta.ts";
import { ExtensionCreateTaskResultSchema, tasksExtensionNotifications, tasksExtensionRequests } from "./tasks-extension.ts";

// Defined in a module of their own, which the MCP layer can load without this one's schemas; exported here as well.
export { STATELESS_META };

/** `_meta` of a 2026-07-28 request: version and capabilities required. */
export const StatelessRequestMetaSchema = looseObject({
  progressToken: v.optional(ProgressTokenSchema),
  [STATELESS_META.protocolVersion]: v.string(),
  [STATELESS_META.clientCapabilities]: ClientCapabilitiesSchema,
  [STATELESS_META.clientInfo]: v.optional(ImplementationSchema),
  [STATELESS_META.logLevel]: v.optional(LoggingLevelSchema),
});

/** The two answers a result may be (extensions may add more; an unknown one is invalid). */
export const ResultTypeSchema = v.picklist(["complete", "input_required"]);

const resultEntries = { _meta: v.optional(MetaSchema), resultType: v.optional(ResultTypeSchema) };
const cacheEntries = {
  // Negative values are a server's error the client treats as 0 (caching spec), not a protocol error.
  ttlMs: v.optional(IntegerSchema),
  cacheScope: v.optional(v.picklist(["private", "public"])),
};

/** A request the server embeds in an `InputRequiredResult` (no id: it is answered by a retry). */
export const InputRequestSchema = v.variant("method", [
  looseObject({
    method: v.literal("elicitation/create"),
    params: v.union([ElicitRequestFormParamsSchema, looseObject({ mode: v.literal("url"), message: v.string(), url: v.string() })]),
  }),
  looseObject({ method: v.literal("sampling/createMessage"), params: CreateMessageRequestParamsSchema }),
  looseObject({ method: v.literal("roots/list"), params: v.optional(looseObject({ _meta: v.optional(MetaSchema) })) }),
]);
/** One embedded request of an `InputRequiredResult`. */
export type InputRequest = v.InferOutput<typeof InputRequestSchema>;

/** A client's answer to one input request. */
export const InputResponseSchema = v.union([ElicitResultSchema, CreateMessageResultSchema, ListRootsResultSchema]);

/** `resultType: "input_required"`: what the server needs before it can answer (MRTR pattern). */
export const InputRequiredResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  resultType: v.literal("input_required"),
  inputRequests: v.optional(record(InputRequestSchema)),
  requestState: v.optional(v.string()),
});
/** An interim answer asking the client for input. */
export type InputRequiredResult = v.InferOutput<typeof InputRequiredResultSchema>;

/** What a notification on a `subscriptions/listen` stream may be asked for. */
export const SubscriptionFilterSchema = looseObject({
  toolsListChanged: v.optional(v.boolean()),
  promptsListChanged: v.optional(v.boolean()),
  resourcesListChanged: v.optional(v.boolean()),
  resourceSubscriptions: v.optional(v.array(v.string())),
  /** Tasks extension: `notifications/tasks` for these task ids. */
  taskIds: v.optional(v.array(v.string())),
});
/** The notification types of one `subscriptions/listen`. */
export type SubscriptionFilter = v.InferOutput<typeof SubscriptionFilterSchema>;

/** The answer to `server/discover`. */
export const DiscoverResultSchema = looseObject({
  ...resultEntries,
  ...cacheEntries,
  supportedVersions: v.array(v.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: v.optional(v.string()),
});
/** The answer to `server/discover`. */
export type DiscoverResult = v.InferOutput<typeof DiscoverResultSchema>;

/** Params of `subscriptions/listen`. */
export const SubscriptionsListenRequestParamsSchema = looseObject({
  _meta: StatelessRequestMetaSchema,
  notifications: SubscriptionFilterSchema,
});

/** The graceful end of a `subscriptions/listen` stream. */
export const SubscriptionsListenResultSchema = looseObject({
  ...resultEntries,
  _meta: looseObject({ [STATELESS_META.subscriptionId]: RequestIdSchema }),
});

/** Params of `notifications/subscriptions/acknowledged`: the filter the server agreed to honour. */
export const SubscriptionsAcknowledgedNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  notifications: SubscriptionFilterSchema,
});

/** Params with nothing but the modern request `_meta`. */
const statelessParamsOnly = (): AnySchema => looseObject({ _meta: StatelessRequestMetaSchema }) as unknown as AnySchema;

/** A 2025-11-25 object schema with the modern request `_meta` (and MRTR retry fields when `mrtr`). */
function statelessParams(schema: AnySchema, mrtr = false): AnySchema {
  const entries = (schema as unknown as { entries?: v.ObjectEntries }).entries;
  if (entries === undefined) return statelessParamsOnly();
  const { task: _task, ...rest } = entries;
  const retry = { inputResponses: v.optional(record(InputResponseSchema)), requestState: v.optional(v.string()) };
  return (mrtr
    ? looseObject({ ...rest, ...retry, _meta: StatelessRequestMetaSchema })
    : looseObject({ ...rest, _meta: StatelessRequestMetaSchema })) as unknown as AnySchema;
}

/** A 2025-11-25 result schema with `resultType` (and the caching hints when `cacheable`). */
function statelessResult(schema: AnySchema, cacheable = false): AnySchema {
  const entries = (schema as unknown as { entries: v.ObjectEntries }).entries;
  const out = cacheable ? looseObject({ ...entries, ...resultEntries, ...cacheEntries }) : looseObject({ ...entries, ...resultEntries });
  return out as unknown as AnySchema;
}

/** One 2025-11-25 request as 2026-07-28 has it: modern `_meta`, `resultType`, and what else `options` say. */
function entry(base: RequestSpec, options: { mrtr?: boolean; cacheable?: boolean; task?: boolean } = {}): RequestSpec {
  return {
    from: "client",
    params: statelessParams(base.params, options.mrtr),
    result: statelessResult(base.result, options.cacheable),
    inputRequired: options.mrtr,
    taskResult: options.task ? ExtensionCreateTaskResultSchema : undefined,
  };
}

/** Request methods of 2026-07-28 (all client→server). */
function requests() {
  const from = requests_2025_11_25;
  return {
    "server/discover": { from: "client", params: statelessParamsOnly(), result: DiscoverResultSchema },
    "resources/list": entry(from["resources/list"], { cacheable: true }),
    "resources/templates/list": entry(from["resources/templates/list"], { cacheable: true }),
    "resources/read": entry(from["resources/read"], { mrtr: true, cacheable: true }),
    "subscriptions/listen": { from: "client", params: SubscriptionsListenRequestParamsSchema, result: SubscriptionsListenResultSchema },
    "prompts/list": entry(from["prompts/list"], { cacheable: true }),
    "prompts/get": entry(from["prompts/get"], { mrtr: true }),
    "tools/list": entry(from["tools/list"], { cacheable: true }),
    "tools/call": entry(from["tools/call"], { mrtr: true, task: true }),
    "completion/complete": entry(from["completion/complete"]),
  } as const satisfies Record<string, RequestSpec>;
}

/** Notification methods of 2026-07-28. */
function notifications() {
  const n = notifications_2025_11_25;
  return {
    // Only stdio uses it from the client; on HTTP closing the stream cancels (transport spec).
    "notifications/cancelled": {
      from: "both",
      params: looseObject({ _meta: v.optional(MetaSchema), requestId: RequestIdSchema, reason: v.optional(v.string()) }),
    },
    "notifications/progress": { from: "server", params: n["notifications/progress"].params },
    "notifications/subscriptions/acknowledged": { from: "server", params: SubscriptionsAcknowledgedNotificationParamsSchema },
    "notifications/resources/list_changed": { from: "server", params: n["notifications/resources/list_changed"].params },
    "notifications/resources/updated": { from: "server", params: n["notifications/resources/updated"].params },
    "notifications/prompts/list_changed": { from: "server", params: n["notifications/prompts/list_changed"].params },
    "notifications/tools/list_changed": { from: "server", params: n["notifications/tools/list_changed"].params },
    "notifications/message": { from: "server", params: n["notifications/message"].params },
  } as const;
}

/** The 2026-07-28 revision table (built on first use: its request schemas are derived, one per method). */
export const table_2026_07_28 = lazyTable(
  () =>
    ({
      revision: "2026-07-28",
      batches: false,
      stateful: false,
      requests: requests(),
      notifications: notifications(),
      extensions: { requests: tasksExtensionRequests(StatelessRequestMetaSchema), notifications: tasksExtensionNotifications },
    }) as const satisfies RevisionTable,
);
