/**
 * Resources (revision 2025-11-25): list, templates, read, subscribe/unsubscribe, and their notifications.
 * `Resource` itself lives in `content.ts` (it shares its fields with `ResourceLink`).
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { ResourceSchema, TextOrBlobResourceContentsSchema } from "./content.ts";
import { AnnotationsSchema, baseMetadataEntries, iconsEntries, MetaSchema, paginatedResultEntries, RequestMetaSchema } from "./base.ts";

/** A template for resources the server can read (RFC 6570 `uriTemplate`). */
export const ResourceTemplateSchema = looseObject({
  ...baseMetadataEntries,
  ...iconsEntries,
  _meta: v.optional(MetaSchema),
  annotations: v.optional(AnnotationsSchema),
  uriTemplate: v.string(),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
});
/** A template for resources the server can read. */
export type ResourceTemplate = v.InferOutput<typeof ResourceTemplateSchema>;

/** The answer to `resources/list`. */
export const ListResourcesResultSchema = looseObject({
  ...paginatedResultEntries,
  resources: v.array(ResourceSchema),
});
/** The answer to `resources/list`. */
export type ListResourcesResult = v.InferOutput<typeof ListResourcesResultSchema>;

/** The answer to `resources/templates/list`. */
export const ListResourceTemplatesResultSchema = looseObject({
  ...paginatedResultEntries,
  resourceTemplates: v.array(ResourceTemplateSchema),
});
/** The answer to `resources/templates/list`. */
export type ListResourceTemplatesResult = v.InferOutput<typeof ListResourceTemplatesResultSchema>;

/** Params of a request about one resource (`uri`). */
export const ResourceRequestParamsSchema = looseObject({ _meta: v.optional(RequestMetaSchema), uri: v.string() });
/** Params of a request about one resource. */
export type ResourceRequestParams = v.InferOutput<typeof ResourceRequestParamsSchema>;

/** Params of `resources/read`. */
export const ReadResourceRequestParamsSchema = ResourceRequestParamsSchema;
/** Params of `resources/read`. */
export type ReadResourceRequestParams = ResourceRequestParams;
/** Params of `resources/subscribe`. */
export const SubscribeRequestParamsSchema = ResourceRequestParamsSchema;
/** Params of `resources/subscribe`. */
export type SubscribeRequestParams = ResourceRequestParams;
/** Params of `resources/unsubscribe`. */
export const UnsubscribeRequestParamsSchema = ResourceRequestParamsSchema;
/** Params of `resources/unsubscribe`. */
export type UnsubscribeRequestParams = ResourceRequestParams;

/** The answer to `resources/read`. */
export const ReadResourceResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  contents: v.array(TextOrBlobResourceContentsSchema),
});
/** The answer to `resources/read`. */
export type ReadResourceResult = v.InferOutput<typeof ReadResourceResultSchema>;

/** Params of `notifications/resources/updated`: the subscribed resource (or a sub-resource) changed. */
export const ResourceUpdatedNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  uri: v.string(),
});
/** Params of `notifications/resources/updated`. */
export type ResourceUpdatedNotificationParams = v.InferOutput<typeof ResourceUpdatedNotificationParamsSchema>;
