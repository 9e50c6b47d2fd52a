/**
 * Sampling (revision 2025-11-25): `sampling/createMessage`, including tool-use sampling (`tools`,
 * `toolChoice`, `tool_use` / `tool_result` content, and arrays of content per message).
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { AudioContentSchema, ContentBlockSchema, ImageContentSchema, TextContentSchema } from "./content.ts";
import { IntegerSchema, MetaSchema, RequestMetaSchema, RoleSchema, TaskMetadataSchema, UnitIntervalSchema } from "./base.ts";
import { ToolSchema } from "./tools.ts";

/** A request from the assistant to call a tool (tool-use sampling). */
export const ToolUseContentSchema = looseObject({
  _meta: v.optional(MetaSchema),
  type: v.literal("tool_use"),
  id: v.string(),
  name: v.string(),
  input: record(v.unknown()),
});
/** A request from the assistant to call a tool. */
export type ToolUseContent = v.InferOutput<typeof ToolUseContentSchema>;

/** The result of a tool use, given back to the assistant (tool-use sampling). */
export const ToolResultContentSchema = looseObject({
  _meta: v.optional(MetaSchema),
  type: v.literal("tool_result"),
  toolUseId: v.string(),
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(record(v.unknown())),
  isError: v.optional(v.boolean()),
});
/** The result of a tool use. */
export type ToolResultContent = v.InferOutput<typeof ToolResultContentSchema>;

/** One content block of a sampling message. */
export const SamplingMessageContentBlockSchema = v.variant("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);
/** One content block of a sampling message. */
export type SamplingMessageContentBlock = v.InferOutput<typeof SamplingMessageContentBlockSchema>;

/** A sampling message's content: one block or an array of blocks. */
export const SamplingContentSchema = v.union([SamplingMessageContentBlockSchema, v.array(SamplingMessageContentBlockSchema)]);

/** A message in a sampling conversation. */
export const SamplingMessageSchema = looseObject({
  _meta: v.optional(MetaSchema),
  role: RoleSchema,
  content: SamplingContentSchema,
});
/** A message in a sampling conversation. */
export type SamplingMessage = v.InferOutput<typeof SamplingMessageSchema>;

/** A hint for model selection (a substring of a model name). */
export const ModelHintSchema = looseObject({ name: v.optional(v.string()) });
/** A hint for model selection. */
export type ModelHint = v.InferOutput<typeof ModelHintSchema>;

/** The server's preferences for model selection; priorities are in [0, 1]. */
export const ModelPreferencesSchema = looseObject({
  hints: v.optional(v.array(ModelHintSchema)),
  costPriority: v.optional(UnitIntervalSchema),
  speedPriority: v.optional(UnitIntervalSchema),
  intelligencePriority: v.optional(UnitIntervalSchema),
});
/** The server's preferences for model selection. */
export type ModelPreferences = v.InferOutput<typeof ModelPreferencesSchema>;

/** How the model may use tools during sampling. */
export const ToolChoiceSchema = looseObject({ mode: v.optional(v.picklist(["auto", "required", "none"])) });
/**
 * How the model may use tools during sampling. The official name is `ToolChoice`; it is renamed here because
 * the loop layer's `ToolChoice` (loop/model.ts) is exported from the same package root.
 */
export type SamplingToolChoice = v.InferOutput<typeof ToolChoiceSchema>;

/** Params of `sampling/createMessage`. */
export const CreateMessageRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  task: v.optional(TaskMetadataSchema),
  messages: v.array(SamplingMessageSchema),
  modelPreferences: v.optional(ModelPreferencesSchema),
  systemPrompt: v.optional(v.string()),
  includeContext: v.optional(v.picklist(["none", "thisServer", "allServers"])),
  temperature: v.optional(v.number()),
  maxTokens: IntegerSchema,
  stopSequences: v.optional(v.array(v.string())),
  metadata: v.optional(looseObject({})),
  tools: v.optional(v.array(ToolSchema)),
  toolChoice: v.optional(ToolChoiceSchema),
});
/** Params of `sampling/createMessage`. */
export type CreateMessageRequestParams = v.InferOutput<typeof CreateMessageRequestParamsSchema>;

/** The client's answer to `sampling/createMessage`. `stopReason` is open (`endTurn`, `maxTokens`, `toolUse` …). */
export const CreateMessageResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  role: RoleSchema,
  content: SamplingContentSchema,
  model: v.string(),
  stopReason: v.optional(v.string()),
});
/** The client's answer to `sampling/createMessage`. */
export type CreateMessageResult = v.InferOutput<typeof CreateMessageResultSchema>;
