/**
 * Method table of revision 2025-03-26, as differences from 2025-06-18 (checked against the official JSON
 * Schema of each revision):
 * - JSON-RPC batches are allowed;
 * - no elicitation;
 * - content blocks have no `resource_link` (tool results and prompt messages: text, image, audio, resource).
 * Objects stay open, so later optional fields (`title`, `structuredContent`, `outputSchema`) pass through,
 * as they do in the official schema.
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { MetaSchema, RoleSchema } from "./base.ts";
import { AudioContentSchema, EmbeddedResourceSchema, ImageContentSchema, TextContentSchema } from "./content.ts";
import { CallToolResultSchema } from "./tools.ts";
import { GetPromptResultSchema } from "./prompts.ts";
import { notifications_2025_06_18, requests_2025_06_18 } from "./methods-2025-06-18.ts";
import type { RevisionTable } from "./method-table.ts";

/** A 2025-03-26 content block: no `resource_link`. */
export const ContentBlockSchema_2025_03_26 = v.variant("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  EmbeddedResourceSchema,
]);

/** The answer to a 2025-03-26 `tools/call`. */
export const CallToolResultSchema_2025_03_26 = looseObject({
  ...CallToolResultSchema.entries,
  content: v.array(ContentBlockSchema_2025_03_26),
});

/** The answer to a 2025-03-26 `prompts/get`. */
export const GetPromptResultSchema_2025_03_26 = looseObject({
  ...GetPromptResultSchema.entries,
  _meta: v.optional(MetaSchema),
  messages: v.array(looseObject({ role: RoleSchema, content: ContentBlockSchema_2025_03_26 })),
});

const { "elicitation/create": _elicit, ...requests } = requests_2025_06_18;

/** Request methods of 2025-03-26. */
export const requests_2025_03_26 = {
  ...requests,
  "tools/call": { ...requests["tools/call"], result: CallToolResultSchema_2025_03_26 },
  "prompts/get": { ...requests["prompts/get"], result: GetPromptResultSchema_2025_03_26 },
} as const;

/** Notification methods of 2025-03-26 (the same set as 2025-06-18). */
export const notifications_2025_03_26 = notifications_2025_06_18;

/** The 2025-03-26 revision table. */
export const table_2025_03_26 = {
  revision: "2025-03-26",
  batches: true,
  stateful: true,
  requests: requests_2025_03_26,
  notifications: notifications_2025_03_26,
} as const satisfies RevisionTable;
