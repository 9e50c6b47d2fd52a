/**
 * Tools (revision 2025-11-25): `Tool` with input/output JSON Schemas, annotations and `execution.taskSupport`,
 * `tools/list`, `tools/call`.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { ContentBlockSchema } from "./content.ts";
import { baseMetadataEntries, iconsEntries, MetaSchema, paginatedResultEntries, RequestMetaSchema, TaskMetadataSchema } from "./base.ts";

/**
 * A JSON Schema for a tool's input or output. The spec pins only `type: "object"`; the rest is any JSON
 * Schema (2020-12 by default, or the dialect named in `$schema`).
 */
export const ToolJsonSchemaSchema = looseObject({
  $schema: v.optional(v.string()),
  type: v.literal("object"),
  properties: v.optional(record(looseObject({}))),
  required: v.optional(v.array(v.string())),
});
/** A JSON Schema for a tool's input or output. */
export type ToolJsonSchema = v.InferOutput<typeof ToolJsonSchemaSchema>;

/** Hints about a tool's behaviour. Untrusted unless the server is. */
export const ToolAnnotationsSchema = looseObject({
  title: v.optional(v.string()),
  readOnlyHint: v.optional(v.boolean()),
  destructiveHint: v.optional(v.boolean()),
  idempotentHint: v.optional(v.boolean()),
  openWorldHint: v.optional(v.boolean()),
});
/** Hints about a tool's behaviour. */
export type ToolAnnotations = v.InferOutput<typeof ToolAnnotationsSchema>;

/** Whether a tool may, must, or must not be called as a task. */
export const TaskSupportSchema = v.picklist(["forbidden", "optional", "required"]);
/** Whether a tool may, must, or must not be called as a task. */
export type TaskSupport = v.InferOutput<typeof TaskSupportSchema>;

/** Execution-related properties of a tool. */
export const ToolExecutionSchema = looseObject({ taskSupport: v.optional(TaskSupportSchema) });
/** Execution-related properties of a tool. */
export type ToolExecution = v.InferOutput<typeof ToolExecutionSchema>;

/** A tool the client can call. */
export const ToolSchema = looseObject({
  ...baseMetadataEntries,
  ...iconsEntries,
  _meta: v.optional(MetaSchema),
  description: v.optional(v.string()),
  inputSchema: ToolJsonSchemaSchema,
  outputSchema: v.optional(ToolJsonSchemaSchema),
  annotations: v.optional(ToolAnnotationsSchema),
  execution: v.optional(ToolExecutionSchema),
});
/** A tool the client can call. */
export type Tool = v.InferOutput<typeof ToolSchema>;

/** The answer to `tools/list`. */
export const ListToolsResultSchema = looseObject({ ...paginatedResultEntries, tools: v.array(ToolSchema) });
/** The answer to `tools/list`. */
export type ListToolsResult = v.InferOutput<typeof ListToolsResultSchema>;

/** Params of `tools/call`; `task` asks for task-augmented execution. */
export const CallToolRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  task: v.optional(TaskMetadataSchema),
  name: v.string(),
  arguments: v.optional(record(v.unknown())),
});
/** Params of `tools/call`. */
export type CallToolRequestParams = v.InferOutput<typeof CallToolRequestParamsSchema>;

/** The answer to a (non-task) `tools/call`. A tool failure is `isError: true`, not a JSON-RPC error. */
export const CallToolResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  content: v.array(ContentBlockSchema),
  structuredContent: v.optional(record(v.unknown())),
  isError: v.optional(v.boolean()),
});
/** The answer to a (non-task) `tools/call`. */
export type CallToolResult = v.InferOutput<typeof CallToolResultSchema>;
