/**
 * valibot 1.x validators do not describe themselves as JSON Schema (no `~standard.jsonSchema`): its own
 * `@valibot/to-json-schema` does. When that package is installed (an optional peer of the SDK), a valibot
 * tool's parameters are rendered with it, so `tool({ parameters: v.object(…) })` needs no hand-written
 * `jsonSchema`, as with zod 4 or arktype. It is loaded only the first time a valibot schema asks, and
 * synchronously (`tool()` is synchronous): the package ships a CommonJS build for exactly this.
 */
import { createRequire } from "node:module";
import type { StandardSchemaV1 } from "./standard-schema.ts";

type ToJsonSchema = (
  schema: unknown,
  config: { target: "draft-2020-12"; typeMode: "input" | "output"; errorMode: "ignore" },
) => Record<string, unknown>;

/** How the converter is loaded; tests replace `load` to see a machine without the package. Not exported by any entry. */
export const valibotConverter: { load: () => { toJsonSchema?: ToJsonSchema } | null } = {
  load() {
    try {
      return createRequire(import.meta.url)("@valibot/to-json-schema") as { toJsonSchema?: ToJsonSchema };
    } catch {
      return null;
    }
  },
};

let loaded: { toJsonSchema?: ToJsonSchema } | null | undefined;

/** `@valibot/to-json-schema`'s converter (loaded once), or undefined when the package is not installed. */
function converter(): ToJsonSchema | undefined {
  if (loaded === undefined) loaded = valibotConverter.load();
  return loaded?.toJsonSchema;
}

/** Forget the loaded converter (tests). */
export function forgetValibotConverter(): void {
  loaded = undefined;
}

/**
 * The JSON Schema of a valibot schema's input or output, or undefined when `schema` is not valibot's or
 * the converter is not installed. Checks the converter cannot express (a custom `check`) are left out of
 * the schema the model reads; the validator still enforces them on every call.
 */
export function valibotJsonSchema(schema: StandardSchemaV1, side: "input" | "output"): Record<string, unknown> | undefined {
  if (schema["~standard"].vendor !== "valibot") return undefined;
  const toJsonSchema = converter();
  if (!toJsonSchema) return undefined;
  const { $schema: _, ...rendered } = toJsonSchema(schema, { target: "draft-2020-12", typeMode: side, errorMode: "ignore" });
  return rendered;
}
