/**
 * Elicitation (revision 2025-11-25): `elicitation/create` in form mode (a flat, restricted JSON Schema) and
 * URL mode (out-of-band), `notifications/elicitation/complete`, and the -32042 error's data.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";
import { IntegerSchema, MetaSchema, RequestMetaSchema, TaskMetadataSchema } from "./base.ts";

const titled = { title: v.optional(v.string()), description: v.optional(v.string()) };

/** A string field of a form. */
export const StringSchemaSchema = looseObject({
  ...titled,
  type: v.literal("string"),
  minLength: v.optional(IntegerSchema),
  maxLength: v.optional(IntegerSchema),
  format: v.optional(v.picklist(["email", "uri", "date", "date-time"])),
  default: v.optional(v.string()),
});
/** A string field of a form (the official name is `StringSchema`). */
export type StringSchema = v.InferOutput<typeof StringSchemaSchema>;

/** A number or integer field of a form. */
export const NumberSchemaSchema = looseObject({
  ...titled,
  type: v.picklist(["number", "integer"]),
  minimum: v.optional(v.number()),
  maximum: v.optional(v.number()),
  default: v.optional(v.number()),
});
/** A number or integer field of a form. */
export type NumberSchema = v.InferOutput<typeof NumberSchemaSchema>;

/** A boolean field of a form. */
export const BooleanSchemaSchema = looseObject({ ...titled, type: v.literal("boolean"), default: v.optional(v.boolean()) });
/** A boolean field of a form. */
export type BooleanSchema = v.InferOutput<typeof BooleanSchemaSchema>;

const option = looseObject({ const: v.string(), title: v.string() });

/** Single choice among plain values. */
export const UntitledSingleSelectEnumSchemaSchema = looseObject({
  ...titled,
  type: v.literal("string"),
  enum: v.array(v.string()),
  default: v.optional(v.string()),
});
/** Single choice among plain values. */
export type UntitledSingleSelectEnumSchema = v.InferOutput<typeof UntitledSingleSelectEnumSchemaSchema>;

/** Single choice among titled values (`oneOf` of `{const, title}`). */
export const TitledSingleSelectEnumSchemaSchema = looseObject({
  ...titled,
  type: v.literal("string"),
  oneOf: v.array(option),
  default: v.optional(v.string()),
});
/** Single choice among titled values. */
export type TitledSingleSelectEnumSchema = v.InferOutput<typeof TitledSingleSelectEnumSchemaSchema>;

const multi = {
  ...titled,
  type: v.literal("array"),
  minItems: v.optional(IntegerSchema),
  maxItems: v.optional(IntegerSchema),
  default: v.optional(v.array(v.string())),
};

/** Multiple choice among plain values. */
export const UntitledMultiSelectEnumSchemaSchema = looseObject({
  ...multi,
  items: looseObject({ type: v.literal("string"), enum: v.array(v.string()) }),
});
/** Multiple choice among plain values. */
export type UntitledMultiSelectEnumSchema = v.InferOutput<typeof UntitledMultiSelectEnumSchemaSchema>;

/** Multiple choice among titled values. */
export const TitledMultiSelectEnumSchemaSchema = looseObject({
  ...multi,
  items: looseObject({ anyOf: v.array(option) }),
});
/** Multiple choice among titled values. */
export type TitledMultiSelectEnumSchema = v.InferOutput<typeof TitledMultiSelectEnumSchemaSchema>;

/** The pre-2025-11-25 titled enum (`enum` + non-standard `enumNames`); still accepted. */
export const LegacyTitledEnumSchemaSchema = looseObject({
  ...titled,
  type: v.literal("string"),
  enum: v.array(v.string()),
  enumNames: v.optional(v.array(v.string())),
  default: v.optional(v.string()),
});
/** The legacy titled enum. */
export type LegacyTitledEnumSchema = v.InferOutput<typeof LegacyTitledEnumSchemaSchema>;

/** Any single-select enum field. */
export const SingleSelectEnumSchemaSchema = v.union([UntitledSingleSelectEnumSchemaSchema, TitledSingleSelectEnumSchemaSchema]);
/** Any single-select enum field. */
export type SingleSelectEnumSchema = v.InferOutput<typeof SingleSelectEnumSchemaSchema>;
/** Any multi-select enum field. */
export const MultiSelectEnumSchemaSchema = v.union([UntitledMultiSelectEnumSchemaSchema, TitledMultiSelectEnumSchemaSchema]);
/** Any multi-select enum field. */
export type MultiSelectEnumSchema = v.InferOutput<typeof MultiSelectEnumSchemaSchema>;
/** Any enum field. */
export const EnumSchemaSchema = v.union([
  UntitledSingleSelectEnumSchemaSchema,
  TitledSingleSelectEnumSchemaSchema,
  UntitledMultiSelectEnumSchemaSchema,
  TitledMultiSelectEnumSchemaSchema,
  LegacyTitledEnumSchemaSchema,
]);
/** Any enum field. */
export type EnumSchema = v.InferOutput<typeof EnumSchemaSchema>;

/** Any field of an elicitation form: flat primitives only, no nesting. */
export const PrimitiveSchemaDefinitionSchema = v.union([
  StringSchemaSchema,
  NumberSchemaSchema,
  BooleanSchemaSchema,
  UntitledSingleSelectEnumSchemaSchema,
  TitledSingleSelectEnumSchemaSchema,
  UntitledMultiSelectEnumSchemaSchema,
  TitledMultiSelectEnumSchemaSchema,
  LegacyTitledEnumSchemaSchema,
]);
/** Any field of an elicitation form. */
export type PrimitiveSchemaDefinition = v.InferOutput<typeof PrimitiveSchemaDefinitionSchema>;

/** The form an elicitation asks the user to fill in. */
export const ElicitRequestedSchemaSchema = looseObject({
  $schema: v.optional(v.string()),
  type: v.literal("object"),
  properties: record(PrimitiveSchemaDefinitionSchema),
  required: v.optional(v.array(v.string())),
});

const requestBase = {
  _meta: v.optional(RequestMetaSchema),
  task: v.optional(TaskMetadataSchema),
  message: v.string(),
};

/** Params of a form-mode `elicitation/create` (`mode` may be omitted). */
export const ElicitRequestFormParamsSchema = looseObject({
  ...requestBase,
  mode: v.optional(v.literal("form")),
  requestedSchema: ElicitRequestedSchemaSchema,
});
/** Params of a form-mode `elicitation/create`. */
export type ElicitRequestFormParams = v.InferOutput<typeof ElicitRequestFormParamsSchema>;

/** Params of a URL-mode `elicitation/create`: the user completes the interaction out of band. */
export const ElicitRequestURLParamsSchema = looseObject({
  ...requestBase,
  mode: v.literal("url"),
  elicitationId: v.string(),
  url: v.string(),
});
/** Params of a URL-mode `elicitation/create`. */
export type ElicitRequestURLParams = v.InferOutput<typeof ElicitRequestURLParamsSchema>;

/** Params of `elicitation/create`, either mode; dispatched on `mode` so errors name the right fields. */
export const ElicitRequestParamsSchema = v.variant("mode", [ElicitRequestURLParamsSchema, ElicitRequestFormParamsSchema]);
/** Params of `elicitation/create`, either mode. */
export type ElicitRequestParams = v.InferOutput<typeof ElicitRequestParamsSchema>;

/**
 * A submitted form value. The official JSON Schema says integer for numbers, but `NumberSchema` fields may
 * be non-integers and the TypeScript source says `number`: accept any number.
 */
export const ElicitValueSchema = v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]);

/** The client's answer to `elicitation/create`. */
export const ElicitResultSchema = looseObject({
  _meta: v.optional(MetaSchema),
  action: v.picklist(["accept", "decline", "cancel"]),
  content: v.optional(record(ElicitValueSchema)),
});
/** The client's answer to `elicitation/create`. */
export type ElicitResult = v.InferOutput<typeof ElicitResultSchema>;

/** Params of `notifications/elicitation/complete` (URL mode finished out of band). */
export const ElicitationCompleteNotificationParamsSchema = looseObject({
  _meta: v.optional(MetaSchema),
  elicitationId: v.string(),
});
/** Params of `notifications/elicitation/complete`. */
export type ElicitationCompleteNotificationParams = v.InferOutput<typeof ElicitationCompleteNotificationParamsSchema>;

/** `error.data` of a -32042 URL-elicitation-required error. */
export const URLElicitationRequiredErrorDataSchema = looseObject({
  elicitations: v.array(ElicitRequestURLParamsSchema),
});
/** `error.data` of a -32042 URL-elicitation-required error. */
export type URLElicitationRequiredErrorData = v.InferOutput<typeof URLElicitationRequiredErrorDataSchema>;
