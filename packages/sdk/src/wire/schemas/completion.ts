/** Argument completion (revision 2025-11-25): `completion/complete`. */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { baseMetadataEntries, IntegerSchema, MetaSchema, RequestMetaSchema } from "./base.ts";

/** Identifies a prompt to complete an argument of. */
export const PromptReferenceSchema = looseObject({ ...baseMetadataEntries, type: v.literal("ref/prompt") });
/** Identifies a prompt. */
export type PromptReference = v.InferOutput<typeof PromptReferenceSchema>;

/** Identifies a resource template (or, before 2025-06-18, a resource) to complete a variable of. */
export const ResourceTemplateReferenceSchema = looseObject({ type: v.literal("ref/resource"), uri: v.string() });
/** Identifies a resource template. */
export type ResourceTemplateReference = v.InferOutput<typeof ResourceTemplateReferenceSchema>;

/** Params of `completion/complete`. */
export const CompleteRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  ref: v.variant("type", [PromptReferenceSchema, ResourceTemplateReferenceSchema]),
  argument: looseObject({ name: v.string(), value: v.string() }),
  context: v.optional(looseObject({ arguments: v.optional(record(v.string())) })),
});
/** Params of `completion/complete`. */
export type CompleteRequestParams = v.InferOutput<typeof CompleteRequestParamsSchema>;

/** The answer to `completion/complete`: at most 100 values. */
export const CompleteResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  completion: looseObject({
    values: v.array(v.string()),
    total: v.optional(IntegerSchema),
    hasMore: v.optional(v.boolean()),
  }),
});
/** The answer to `completion/complete`. */
export type CompleteResult = v.InferOutput<typeof CompleteResultSchema>;
