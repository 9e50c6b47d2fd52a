/**
 * Lifecycle and utility messages (revision 2025-11-25): initialize, initialized, ping, cancellation, progress.
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { ClientCapabilitiesSchema, ServerCapabilitiesSchema } from "./capabilities.ts";
import { ImplementationSchema, MetaSchema, ProgressTokenSchema, RequestIdSchema, RequestMetaSchema } from "./base.ts";

/** Params of `initialize`, sent by the client first. */
export const InitializeRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  protocolVersion: v.string(),
  capabilities: ClientCapabilitiesSchema,
  clientInfo: ImplementationSchema,
});
/** Params of `initialize`. */
export type InitializeRequestParams = v.InferOutput<typeof InitializeRequestParamsSchema>;

/** The server's answer to `initialize`. */
export const InitializeResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  protocolVersion: v.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: v.optional(v.string()),
});
/** The server's answer to `initialize`. */
export type InitializeResult = v.InferOutput<typeof InitializeResultSchema>;

/**
 * Params of `notifications/cancelled`. `requestId` is optional since 2025-11-25 (a task is cancelled with
 * `tasks/cancel` instead); it stays required in older revisions.
 */
export const CancelledNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  requestId: v.optional(RequestIdSchema),
  reason: v.optional(v.string()),
});
/** Params of `notifications/cancelled`. */
export type CancelledNotificationParams = v.InferOutput<typeof CancelledNotificationParamsSchema>;

/** Params of `notifications/progress`. */
export const ProgressNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  progressToken: ProgressTokenSchema,
  progress: v.number(),
  total: v.optional(v.number()),
  message: v.optional(v.string()),
});
/** Params of `notifications/progress`. */
export type ProgressNotificationParams = v.InferOutput<typeof ProgressNotificationParamsSchema>;
