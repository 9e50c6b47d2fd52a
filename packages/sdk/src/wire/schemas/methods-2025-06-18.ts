/**
 * Method table of revision 2025-06-18, as differences from 2025-11-25 (checked against the official JSON
 * Schema of each revision):
 * - no tasks: no `tasks/*` requests, no `notifications/tasks/status`, no task-augmented answers;
 * - elicitation is form mode only (`requestedSchema` required), with the older field kinds (string, number,
 *   boolean, `enum` + `enumNames`; no multi-select), and answers without arrays; no
 *   `notifications/elicitation/complete`;
 * - sampling has no tool use: message content is one text, image or audio block;
 * - `notifications/cancelled` requires `requestId`.
 * Objects stay open, so newer optional fields (icons, `execution`, `task`) pass through, as they do in the
 * official schema.
 *
 * Every schema of this revision is made inside {@link table_2025_06_18}, on its first call: a process that
 * never speaks 2025-06-18 (or 2025-03-26, which builds on it) never makes them.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { MetaSchema, RequestIdSchema, RequestMetaSchema, RoleSchema } from "./base.ts";
import { AudioContentSchema, ImageContentSchema, TextContentSchema } from "./content.ts";
import { BooleanSchemaSchema, NumberSchemaSchema, StringSchemaSchema } from "./elicitation.ts";
import { CreateMessageRequestParamsSchema, CreateMessageResultSchema } from "./sampling.ts";
import { notifications_2025_11_25, requests_2025_11_25 } from "./methods-2025-11-25.ts";
import { lazyTable, type RevisionTable } from "./method-table.ts";

/** `elicitation/create` of 2025-06-18: form mode only, the older field kinds, primitive answers. */
function elicitation() {
  // An enum field: `enum` with optional `enumNames`.
  const EnumSchemaSchema = looseObject({
    title: v.optional(v.string()),
    description: v.optional(v.string()),
    type: v.literal("string"),
    enum: v.array(v.string()),
    enumNames: v.optional(v.array(v.string())),
  });
  const PrimitiveSchemaDefinitionSchema = v.union([StringSchemaSchema, NumberSchemaSchema, BooleanSchemaSchema, EnumSchemaSchema]);
  return {
    from: "server",
    params: looseObject({
      _meta: v.optional(RequestMetaSchema),
      message: v.string(),
      requestedSchema: looseObject({
        type: v.literal("object"),
        properties: record(PrimitiveSchemaDefinitionSchema),
        required: v.optional(v.array(v.string())),
      }),
    }),
    result: looseObject({
      _meta: v.optional(MetaSchema),
      action: v.picklist(["accept", "decline", "cancel"]),
      content: v.optional(record(v.union([v.string(), v.number(), v.boolean()]))),
    }),
  } as const;
}

/** `sampling/createMessage` of 2025-06-18: no tool use, message content is one text, image or audio block. */
function sampling() {
  const SamplingContentSchema = v.variant("type", [TextContentSchema, ImageContentSchema, AudioContentSchema]);
  // Tool-use sampling fields did not exist yet: drop them (an open object lets them pass unchecked).
  const { tools: _tools, toolChoice: _toolChoice, task: _task, ...createMessageEntries } = CreateMessageRequestParamsSchema.entries;
  return {
    from: "server",
    params: looseObject({
      ...createMessageEntries,
      messages: v.array(looseObject({ role: RoleSchema, content: SamplingContentSchema })),
    }),
    result: looseObject({ ...CreateMessageResultSchema.entries, content: SamplingContentSchema }),
  } as const;
}

/** The 2025-06-18 revision table (built on first use). */
export const table_2025_06_18 = lazyTable(() => {
  const {
    "tasks/get": _get,
    "tasks/result": _result,
    "tasks/list": _list,
    "tasks/cancel": _cancel,
    ...requestsWithoutTasks
  } = requests_2025_11_25;
  const {
    "notifications/tasks/status": _status,
    "notifications/elicitation/complete": _complete,
    ...notifications
  } = notifications_2025_11_25;
  return {
    revision: "2025-06-18",
    batches: false,
    stateful: true,
    requests: {
      ...requestsWithoutTasks,
      "tools/call": { ...requestsWithoutTasks["tools/call"], taskAugmentable: false },
      "sampling/createMessage": sampling(),
      "elicitation/create": elicitation(),
    },
    notifications: {
      ...notifications,
      // `requestId` required.
      "notifications/cancelled": {
        from: "both",
        params: looseObject({ _meta: v.optional(MetaSchema), requestId: RequestIdSchema, reason: v.optional(v.string()) }),
      },
    },
  } as const satisfies RevisionTable;
});
