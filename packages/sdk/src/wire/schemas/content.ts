/**
 * Content blocks (text, image, audio, resource_link, embedded resource) and resource contents, as carried by
 * tool results, prompt messages and sampling messages (revision 2025-11-25).
 */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { AnnotationsSchema, baseMetadataEntries, iconsEntries, IntegerSchema, MetaSchema } from "./base.ts";

const common = { _meta: v.optional(MetaSchema), annotations: v.optional(AnnotationsSchema) };

/** Text provided to or from an LLM. */
export const TextContentSchema = looseObject({ ...common, type: v.literal("text"), text: v.string() });
/** Text provided to or from an LLM. */
export type TextContent = v.InferOutput<typeof TextContentSchema>;

/** An image (base64 `data`) provided to or from an LLM. */
export const ImageContentSchema = looseObject({
  ...common,
  type: v.literal("image"),
  data: v.string(),
  mimeType: v.string(),
});
/** An image provided to or from an LLM. */
export type ImageContent = v.InferOutput<typeof ImageContentSchema>;

/** Audio (base64 `data`) provided to or from an LLM. */
export const AudioContentSchema = looseObject({
  ...common,
  type: v.literal("audio"),
  data: v.string(),
  mimeType: v.string(),
});
/** Audio provided to or from an LLM. */
export type AudioContent = v.InferOutput<typeof AudioContentSchema>;

/** Entries of a `Resource` (shared with `ResourceLink`). */
export const resourceEntries = {
  ...baseMetadataEntries,
  ...iconsEntries,
  _meta: v.optional(MetaSchema),
  annotations: v.optional(AnnotationsSchema),
  uri: v.string(),
  description: v.optional(v.string()),
  mimeType: v.optional(v.string()),
  size: v.optional(IntegerSchema),
};

/** A resource the server can read, listed by `resources/list`. */
export const ResourceSchema = looseObject(resourceEntries);
/** A resource the server can read. */
export type Resource = v.InferOutput<typeof ResourceSchema>;

/** A link to a resource, returned in content (not listed by `resources/list` necessarily). */
export const ResourceLinkSchema = looseObject({ ...resourceEntries, type: v.literal("resource_link") });
/** A link to a resource. */
export type ResourceLink = v.InferOutput<typeof ResourceLinkSchema>;

const contentsEntries = { _meta: v.optional(MetaSchema), uri: v.string(), mimeType: v.optional(v.string()) };

/** The contents of a resource: `uri` and optional `mimeType`. */
export const ResourceContentsSchema = looseObject(contentsEntries);
/** The contents of a resource. */
export type ResourceContents = v.InferOutput<typeof ResourceContentsSchema>;

/** Text resource contents. */
export const TextResourceContentsSchema = looseObject({ ...contentsEntries, text: v.string() });
/** Text resource contents. */
export type TextResourceContents = v.InferOutput<typeof TextResourceContentsSchema>;

/** Binary resource contents (base64 `blob`). */
export const BlobResourceContentsSchema = looseObject({ ...contentsEntries, blob: v.string() });
/** Binary resource contents. */
export type BlobResourceContents = v.InferOutput<typeof BlobResourceContentsSchema>;

/** Text or blob contents. */
export const TextOrBlobResourceContentsSchema = v.union([TextResourceContentsSchema, BlobResourceContentsSchema]);
/** Text or blob contents. */
export type TextOrBlobResourceContents = v.InferOutput<typeof TextOrBlobResourceContentsSchema>;

/** The contents of a resource, embedded into a prompt or tool call result. */
export const EmbeddedResourceSchema = looseObject({
  ...common,
  type: v.literal("resource"),
  resource: TextOrBlobResourceContentsSchema,
});
/** The contents of a resource, embedded into a prompt or tool call result. */
export type EmbeddedResource = v.InferOutput<typeof EmbeddedResourceSchema>;

/** Any content block of a tool result or prompt message. */
export const ContentBlockSchema = v.variant("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);
/** Any content block of a tool result or prompt message. */
export type ContentBlock = v.InferOutput<typeof ContentBlockSchema>;
