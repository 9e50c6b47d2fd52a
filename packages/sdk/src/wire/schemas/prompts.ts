/** Prompts (revision 2025-11-25): `prompts/list`, `prompts/get`. */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { ContentBlockSchema } from "./content.ts";
import { baseMetadataEntries, iconsEntries, MetaSchema, paginatedResultEntries, RequestMetaSchema, RoleSchema } from "./base.ts";

/** An argument a prompt template accepts. */
export const PromptArgumentSchema = looseObject({
  ...baseMetadataEntries,
  description: v.optional(v.string()),
  required: v.optional(v.boolean()),
});
/** An argument a prompt template accepts. */
export type PromptArgument = v.InferOutput<typeof PromptArgumentSchema>;

/** A prompt or prompt template the server offers. */
export const PromptSchema = looseObject({
  ...baseMetadataEntries,
  ...iconsEntries,
  _meta: v.optional(MetaSchema),
  description: v.optional(v.string()),
  arguments: v.optional(v.array(PromptArgumentSchema)),
});
/** A prompt or prompt template the server offers. */
export type Prompt = v.InferOutput<typeof PromptSchema>;

/** The answer to `prompts/list`. */
export const ListPromptsResultSchema = looseObject({ ...paginatedResultEntries, prompts: v.array(PromptSchema) });
/** The answer to `prompts/list`. */
export type ListPromptsResult = v.InferOutput<typeof ListPromptsResultSchema>;

/** Params of `prompts/get`. Argument values are strings. */
export const GetPromptRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  name: v.string(),
  arguments: v.optional(record(v.string())),
});
/** Params of `prompts/get`. */
export type GetPromptRequestParams = v.InferOutput<typeof GetPromptRequestParamsSchema>;

/** One message of a prompt. */
export const PromptMessageSchema = looseObject({ role: RoleSchema, content: ContentBlockSchema });
/** One message of a prompt. */
export type PromptMessage = v.InferOutput<typeof PromptMessageSchema>;

/** The answer to `prompts/get`. */
export const GetPromptResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  description: v.optional(v.string()),
  messages: v.array(PromptMessageSchema),
});
/** The answer to `prompts/get`. */
export type GetPromptResult = v.InferOutput<typeof GetPromptResultSchema>;
