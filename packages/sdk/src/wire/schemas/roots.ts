/** Roots (revision 2025-11-25): `roots/list`, answered by the client with its filesystem boundaries. */
import * as v from "valibot";
import { looseObject } from "./open-object.ts";
import { MetaSchema } from "./base.ts";

/** A root directory or file the server may operate on (a `file://` URI). */
export const RootSchema = looseObject({ _meta: v.optional(MetaSchema), uri: v.string(), name: v.optional(v.string()) });
/** A root directory or file the server may operate on. */
export type Root = v.InferOutput<typeof RootSchema>;

/** The client's answer to `roots/list`. */
export const ListRootsResultSchema = looseObject({ _meta: v.optional(MetaSchema), roots: v.array(RootSchema) });
/** The client's answer to `roots/list`. */
export type ListRootsResult = v.InferOutput<typeof ListRootsResultSchema>;
