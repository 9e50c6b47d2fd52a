/**
 * Method table of revision 2025-03-26, as differences from 2025-06-18 (checked against the official JSON
 * Schema of each revision):
 * - JSON-RPC batches are allowed;
 * - no elicitation;
 * - content blocks have no `resource_link` (tool results and prompt messages: text, image, audio, resource).
 * Objects stay open, so later optional fields (`title`, `structuredContent`, `outputSchema`) pass through,
 * as they do in the official schema.
 *
 * Every schema of this revision is made inside {@link table_2025_03_26}, on its first call (which builds
 * the 2025-06-18 table it is derived from).
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { MetaSchema, RoleSchema } from "./base.ts";
import { AudioContentSchema, EmbeddedResourceSchema, ImageContentSchema, TextContentSchema } from "./content.ts";
import { CallToolResultSchema } from "./tools.ts";
import { GetPromptResultSchema } from "./prompts.ts";
import { table_2025_06_18 } from "./methods-2025-06-18.ts";
import { lazyTable, type RevisionTable } from "./method-table.ts";

/** The 2025-03-26 revision table (built on first use). */
export const table_2025_03_26 = lazyTable(() => {
  // A content block: no `resource_link`.
  const ContentBlockSchema = v.variant("type", [TextContentSchema, ImageContentSchema, AudioContentSchema, EmbeddedResourceSchema]);
  const base = table_2025_06_18();
  const { "elicitation/create": _elicit, ...requests } = base.requests;
  return {
    revision: "2025-03-26",
    batches: true,
    stateful: true,
    requests: {
      ...requests,
      "tools/call": {
        ...requests["tools/call"],
        result: looseObject({ ...CallToolResultSchema.entries, content: v.array(ContentBlockSchema) }),
      },
      "prompts/get": {
        ...requests["prompts/get"],
        result: looseObject({
          ...GetPromptResultSchema.entries,
          _meta: v.optional(MetaSchema),
          messages: v.array(looseObject({ role: RoleSchema, content: ContentBlockSchema })),
        }),
      },
    },
    // The same notifications as 2025-06-18.
    notifications: base.notifications,
  } as const satisfies RevisionTable;
});
