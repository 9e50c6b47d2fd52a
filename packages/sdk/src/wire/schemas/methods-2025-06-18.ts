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
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { MetaSchema, RequestIdSchema, RequestMetaSchema, RoleSchema } from "./base.ts";
import { AudioContentSchema, ImageContentSchema, TextContentSchema } from "./content.ts";
import { BooleanSchemaSchema, NumberSchemaSchema, StringSchemaSchema } from "./elicitation.ts";
import { CreateMessageRequestParamsSchema, CreateMessageResultSchema } from "./sampling.ts";
import { notifications_2025_11_25, requests_2025_11_25 } from "./methods-2025-11-25.ts";
import type { RevisionTable } from "./method-table.ts";

/** A 2025-06-18 enum field: `enum` with optional `enumNames`. */
export const EnumSchemaSchema_2025_06_18 = looseObject({
  title: v.optional(v.string()),
  description: v.optional(v.string()),
  type: v.literal("string"),
  enum: v.array(v.string()),
  enumNames: v.optional(v.array(v.string())),
});

/** A 2025-06-18 form field. */
export const PrimitiveSchemaDefinitionSchema_2025_06_18 = v.union([
  StringSchemaSchema,
  NumberSchemaSchema,
  BooleanSchemaSchema,
  EnumSchemaSchema_2025_06_18,
]);

/** Params of a 2025-06-18 `elicitation/create` (form mode only). */
export const ElicitRequestParamsSchema_2025_06_18 = looseObject({
  _meta: v.optional(RequestMetaSchema),
  message: v.string(),
  requestedSchema: looseObject({
    type: v.literal("object"),
    properties: record(PrimitiveSchemaDefinitionSchema_2025_06_18),
    required: v.optional(v.array(v.string())),
  }),
});

/** The answer to a 2025-06-18 `elicitation/create`: primitive values only. */
export const ElicitResultSchema_2025_06_18 = looseObject({
  _meta: v.optional(MetaSchema),
  action: v.picklist(["accept", "decline", "cancel"]),
  content: v.optional(record(v.union([v.string(), v.number(), v.boolean()]))),
});

/** Sampling content before tool use: one text, image or audio block. */
export const SamplingContentSchema_2025_06_18 = v.variant("type", [TextContentSchema, ImageContentSchema, AudioContentSchema]);

// Tool-use sampling fields did not exist yet: drop them (an open object lets them pass unchecked).
const { tools: _tools, toolChoice: _toolChoice, task: _task, ...createMessageEntries } = CreateMessageRequestParamsSchema.entries;

/** Params of a 2025-06-18 `sampling/createMessage`. */
export const CreateMessageRequestParamsSchema_2025_06_18 = looseObject({
  ...createMessageEntries,
  messages: v.array(looseObject({ role: RoleSchema, content: SamplingContentSchema_2025_06_18 })),
});

/** The answer to a 2025-06-18 `sampling/createMessage`. */
export const CreateMessageResultSchema_2025_06_18 = looseObject({
  ...CreateMessageResultSchema.entries,
  content: SamplingContentSchema_2025_06_18,
});

/** Params of a 2025-06-18 `notifications/cancelled`: `requestId` required. */
export const CancelledNotificationParamsSchema_2025_06_18 = looseObject({
  _meta: v.optional(MetaSchema),
  requestId: RequestIdSchema,
  reason: v.optional(v.string()),
});

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

/** Request methods of 2025-06-18. */
export const requests_2025_06_18 = {
  ...requestsWithoutTasks,
  "tools/call": { ...requestsWithoutTasks["tools/call"], taskAugmentable: false },
  "sampling/createMessage": {
    from: "server",
    params: CreateMessageRequestParamsSchema_2025_06_18,
    result: CreateMessageResultSchema_2025_06_18,
  },
  "elicitation/create": {
    from: "server",
    params: ElicitRequestParamsSchema_2025_06_18,
    result: ElicitResultSchema_2025_06_18,
  },
} as const;

/** Notification methods of 2025-06-18. */
export const notifications_2025_06_18 = {
  ...notifications,
  "notifications/cancelled": { from: "both", params: CancelledNotificationParamsSchema_2025_06_18 },
} as const;

/** The 2025-06-18 revision table. */
export const table_2025_06_18 = {
  revision: "2025-06-18",
  batches: false,
  stateful: true,
  requests: requests_2025_06_18,
  notifications: notifications_2025_06_18,
} as const satisfies RevisionTable;
