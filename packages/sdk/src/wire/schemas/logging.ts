/** Logging (revision 2025-11-25): `logging/setLevel` and `notifications/message`. */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { MetaSchema, RequestMetaSchema } from "./base.ts";

/** Syslog severities (RFC 5424), least to most severe. */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** The severity of a log message. */
export const LoggingLevelSchema = v.picklist(LOGGING_LEVELS);
/** The severity of a log message. */
export type LoggingLevel = v.InferOutput<typeof LoggingLevelSchema>;

/** Params of `logging/setLevel`. */
export const SetLevelRequestParamsSchema = looseObject({
  _meta: v.optional(RequestMetaSchema),
  level: LoggingLevelSchema,
});
/** Params of `logging/setLevel`. */
export type SetLevelRequestParams = v.InferOutput<typeof SetLevelRequestParamsSchema>;

/** Params of `notifications/message`. `data` is any JSON value. */
export const LoggingMessageNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  level: LoggingLevelSchema,
  logger: v.optional(v.string()),
  data: v.unknown(),
});
/** Params of `notifications/message`. */
export type LoggingMessageNotificationParams = v.InferOutput<typeof LoggingMessageNotificationParamsSchema>;
