/**
 * Building blocks shared by every MCP message (revision 2025-11-25): ids, `_meta`, pagination, icons,
 * annotations, `Implementation`, and the generic params/result shapes.
 *
 * Objects are `looseObject`: the spec lets peers add fields, and unknown fields must pass through untouched.
 * JSON Schema `format` (uri, byte, uri-template) is an annotation in draft 2020-12, so we check types, not
 * formats: a peer's slightly odd URI is the application's business, not a protocol error.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";

/** A JSON-RPC request id: string or integer (MCP forbids null). */
export const RequestIdSchema = v.union([v.string(), v.pipe(v.number(), v.integer())]);

/** A token linking progress notifications to a request: string or integer. */
export const ProgressTokenSchema = v.union([v.string(), v.pipe(v.number(), v.integer())]);
/** A token linking progress notifications to a request. */
export type ProgressToken = v.InferOutput<typeof ProgressTokenSchema>;

/** An opaque pagination cursor. */
export const CursorSchema = v.string();
/** An opaque pagination cursor. */
export type Cursor = v.InferOutput<typeof CursorSchema>;

/** `_meta`: an open map reserved for protocol and extension metadata. */
export const MetaSchema = record(v.unknown());
/** `_meta` of any message or object. */
export type Meta = v.InferOutput<typeof MetaSchema>;

/** `_meta` of a request: may carry a `progressToken`. */
export const RequestMetaSchema = looseObject({ progressToken: v.optional(ProgressTokenSchema) });
/** `_meta` of a request. */
export type RequestMeta = v.InferOutput<typeof RequestMetaSchema>;

/** Params every request may carry. */
export const RequestParamsSchema = looseObject({ _meta: v.optional(RequestMetaSchema) });
/** Params every request may carry. */
export type RequestParams = v.InferOutput<typeof RequestParamsSchema>;

/** Params every notification may carry. */
export const NotificationParamsSchema = looseObject({ _meta: v.optional(MetaSchema) });
/** Params every notification may carry. */
export type NotificationParams = v.InferOutput<typeof NotificationParamsSchema>;

/** The base of every result: open, with optional `_meta`. */
export const ResultSchema = looseObject({ _meta: v.optional(MetaSchema) });
/** The base of every result. */
export type Result = v.InferOutput<typeof ResultSchema>;

/** A result that carries nothing (ping, subscribe, setLevel …). */
export const EmptyResultSchema = ResultSchema;
/** A result that carries nothing. */
export type EmptyResult = Result;

/** Params of a paginated list request. */
export const PaginatedRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  cursor: v.optional(CursorSchema),
});
/** Params of a paginated list request. */
export type PaginatedRequestParams = v.InferOutput<typeof PaginatedRequestParamsSchema>;

/** Entries every paginated result has (spread into list results). */
export const paginatedResultEntries = {
  _meta: v.optional(MetaSchema),
  nextCursor: v.optional(CursorSchema),
};
/** The base of a paginated result. */
export const PaginatedResultSchema = looseObject(paginatedResultEntries);
/** The base of a paginated result. */
export type PaginatedResult = v.InferOutput<typeof PaginatedResultSchema>;

/** The sender or recipient of messages and data in a conversation. */
export const RoleSchema = v.picklist(["user", "assistant"]);
/** The sender or recipient of messages and data in a conversation. */
export type Role = v.InferOutput<typeof RoleSchema>;

/** A number in [0, 1] (priorities). */
export const UnitIntervalSchema = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
/** A JSON integer. */
export const IntegerSchema = v.pipe(v.number(), v.integer());

/** Hints to the client about how to use or display an object. */
export const AnnotationsSchema = looseObject({
  audience: v.optional(v.array(RoleSchema)),
  priority: v.optional(UnitIntervalSchema),
  lastModified: v.optional(v.string()),
});
/** Hints to the client about how to use or display an object. */
export type Annotations = v.InferOutput<typeof AnnotationsSchema>;

/** An icon for display in a user interface. */
export const IconSchema = looseObject({
  src: v.string(),
  mimeType: v.optional(v.string()),
  sizes: v.optional(v.array(v.string())),
  theme: v.optional(v.picklist(["light", "dark"])),
});
/** An icon for display in a user interface. */
export type Icon = v.InferOutput<typeof IconSchema>;

/** Entries of objects that carry icons. */
export const iconsEntries = { icons: v.optional(v.array(IconSchema)) };
/** An object that may carry icons. */
export const IconsSchema = looseObject(iconsEntries);
/** An object that may carry icons. */
export type Icons = v.InferOutput<typeof IconsSchema>;

/** Entries of `BaseMetadata`: a programmatic `name` and a display `title`. */
export const baseMetadataEntries = { name: v.string(), title: v.optional(v.string()) };
/** A name for programs and a title for people. */
export const BaseMetadataSchema = looseObject(baseMetadataEntries);
/** A name for programs and a title for people. */
export type BaseMetadata = v.InferOutput<typeof BaseMetadataSchema>;

/** The name and version of an MCP implementation (client or server). */
export const ImplementationSchema = looseObject({
  ...baseMetadataEntries,
  ...iconsEntries,
  version: v.string(),
  description: v.optional(v.string()),
  websiteUrl: v.optional(v.string()),
});
/** The name and version of an MCP implementation (client or server). */
export type Implementation = v.InferOutput<typeof ImplementationSchema>;

/** Metadata for augmenting a request with task execution (`params.task`). */
export const TaskMetadataSchema = looseObject({ ttl: v.optional(IntegerSchema) });
/** Metadata for augmenting a request with task execution. */
export type TaskMetadata = v.InferOutput<typeof TaskMetadataSchema>;

/** Params of a request that may be task-augmented. */
export const TaskAugmentedRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  task: v.optional(TaskMetadataSchema),
});
/** Params of a request that may be task-augmented. */
export type TaskAugmentedRequestParams = v.InferOutput<typeof TaskAugmentedRequestParamsSchema>;

/** `_meta["io.modelcontextprotocol/related-task"]`: associates a message with a task. */
export const RelatedTaskMetadataSchema = looseObject({ taskId: v.string() });
/** Associates a message with a task. */
export type RelatedTaskMetadata = v.InferOutput<typeof RelatedTaskMetadataSchema>;
/** The `_meta` key under which {@link RelatedTaskMetadata} travels. */
export const RELATED_TASK_META_KEY = "io.modelcontextprotocol/related-task";
