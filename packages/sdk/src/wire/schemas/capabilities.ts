/**
 * Capabilities exchanged in `initialize` (revision 2025-11-25). Every capability object is open: the presence
 * of a key is the declaration, and peers add sub-flags freely.
 */
import * as v from "valibot";
import { looseObject, record } from "./open-object.ts";

/** An open object: a declared capability with any sub-settings. */
const Open = looseObject({});
const listChanged = looseObject({ listChanged: v.optional(v.boolean()) });

/** Capabilities a client may support. */
export const ClientCapabilitiesSchema = looseObject({
  experimental: v.optional(record(Open)),
  /** 2026-07-28: extensions supported, by identifier (e.g. `io.modelcontextprotocol/tasks`). */
  extensions: v.optional(record(Open)),
  roots: v.optional(listChanged),
  sampling: v.optional(looseObject({ context: v.optional(Open), tools: v.optional(Open) })),
  elicitation: v.optional(looseObject({ form: v.optional(Open), url: v.optional(Open) })),
  tasks: v.optional(
    looseObject({
      list: v.optional(Open),
      cancel: v.optional(Open),
      requests: v.optional(
        looseObject({
          sampling: v.optional(looseObject({ createMessage: v.optional(Open) })),
          elicitation: v.optional(looseObject({ create: v.optional(Open) })),
        }),
      ),
    }),
  ),
});
/** Capabilities a client may support. */
export type ClientCapabilities = v.InferOutput<typeof ClientCapabilitiesSchema>;

/** Capabilities a server may support. */
export const ServerCapabilitiesSchema = looseObject({
  experimental: v.optional(record(Open)),
  /** 2026-07-28: extensions supported, by identifier (e.g. `io.modelcontextprotocol/tasks`). */
  extensions: v.optional(record(Open)),
  logging: v.optional(Open),
  completions: v.optional(Open),
  prompts: v.optional(listChanged),
  resources: v.optional(looseObject({ subscribe: v.optional(v.boolean()), listChanged: v.optional(v.boolean()) })),
  tools: v.optional(listChanged),
  tasks: v.optional(
    looseObject({
      list: v.optional(Open),
      cancel: v.optional(Open),
      requests: v.optional(looseObject({ tools: v.optional(looseObject({ call: v.optional(Open) })) })),
    }),
  ),
});
/** Capabilities a server may support. */
export type ServerCapabilities = v.InferOutput<typeof ServerCapabilitiesSchema>;
