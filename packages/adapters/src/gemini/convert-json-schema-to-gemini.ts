/**
 * JSON Schema → the OpenAPI 3.0 subset Gemini accepts for `functionDeclarations[].parameters` and
 * `responseSchema`. Gemini answers 400 to keywords outside it (`$schema`, `additionalProperties`, `$ref`,
 * `const`, `oneOf`, `exclusiveMinimum` …), to non-string enums, to `required` names that are not
 * properties, and to empty `properties`. MCP servers send all of those (pydantic emits `$defs`/`$ref`
 * and `anyOf [T, null]`), so we translate what has an equivalent and drop the rest.
 */
import { isObj } from "../_internal/lenient.ts";

type Schema = Record<string, unknown>;

const KEEP = new Set([
  "title",
  "description",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "minProperties",
  "maxProperties",
]);
const STRING_FORMATS = new Set(["enum", "date-time"]);
const NUMBER_FORMATS = new Set(["float", "double", "int32", "int64"]);
const MAX_REF_DEPTH = 8;

/** Resolve a local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the root). */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = isObj(node) ? node[key] : undefined;
  }
  return isObj(node) ? node : undefined;
}

/** One schema converted, `$ref`s resolved against `root` (at most {@link MAX_REF_DEPTH} deep). */
function convert(schema: unknown, root: Schema, depth: number): Schema {
  if (!isObj(schema) || depth > MAX_REF_DEPTH) return {};
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    // A sibling description on the $ref wins over the target's (JSON Schema 2019+ allows siblings).
    const merged = target ? { ...target, ...(schema.description ? { description: schema.description } : {}) } : {};
    return convert(merged, root, depth + 1);
  }
  const out: Schema = {};
  for (const k of KEEP) if (schema[k] !== undefined) out[k] = schema[k];

  // `type: [T, "null"]` → `type: T, nullable`; several non-null types → anyOf.
  let types = Array.isArray(schema.type)
    ? schema.type.filter((t): t is string => typeof t === "string")
    : typeof schema.type === "string"
      ? [schema.type]
      : [];
  if (types.includes("null")) {
    out.nullable = true;
    types = types.filter((t) => t !== "null");
  }
  if (types.length > 1) return { ...out, anyOf: types.map((t) => convert({ ...schema, type: t }, root, depth)) };
  const type = types[0];
  if (type !== undefined) out.type = type;

  convertValues(schema, out);
  if (typeof schema.format === "string" && out.format === undefined) {
    const ok = type === "string" ? STRING_FORMATS : type === "number" || type === "integer" ? NUMBER_FORMATS : undefined;
    if (ok?.has(schema.format)) out.format = schema.format;
  }
  convertChildren(schema, out, root, depth);
  convertUnion(schema, out, root, depth);
  convertAllOf(schema, out, root, depth);
  return out;
}

/** `const` and `enum`: string values as Gemini's enum; others, which it refuses, as words in the description. */
function convertValues(schema: Schema, out: Schema): void {
  const values = schema.const !== undefined ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
  if (!values) return;
  if (values.every((v) => typeof v === "string")) {
    out.enum = values;
    out.type ??= "string";
    if (out.type === "string") out.format = "enum";
  } else {
    // Non-string enums are refused; keep the constraint where the model can still read it.
    const allowed = `Allowed values: ${values.map((v) => JSON.stringify(v)).join(", ")}.`;
    out.description = out.description ? `${out.description} ${allowed}` : allowed;
  }
}

/** `properties` (with the `required` names that are properties) and `items` (the first of a tuple). */
function convertChildren(schema: Schema, out: Schema, root: Schema, depth: number): void {
  if (isObj(schema.properties) && Object.keys(schema.properties).length > 0) {
    const props: Schema = {};
    for (const [name, sub] of Object.entries(schema.properties)) props[name] = convert(sub, root, depth);
    out.properties = props;
    out.type ??= "object";
    if (Array.isArray(schema.required)) {
      const required = schema.required.filter((r): r is string => typeof r === "string" && r in props);
      if (required.length > 0) out.required = required;
    }
  }
  if (schema.items !== undefined) {
    const item = Array.isArray(schema.items) ? schema.items[0] : schema.items;
    out.items = convert(item, root, depth);
    out.type ??= "array";
  }
}

/** `anyOf`/`oneOf`: a null member makes it nullable; one other member is merged in, several stay a union. */
function convertUnion(schema: Schema, out: Schema, root: Schema, depth: number): void {
  // anyOf [X, {type:null}] is how pydantic spells Optional[X].
  const union = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (!union) return;
  const nonNull = union.filter((s) => !(isObj(s) && s.type === "null"));
  if (nonNull.length < union.length) out.nullable = true;
  if (nonNull.length === 1) Object.assign(out, { ...convert(nonNull[0], root, depth), ...dropUndefined(out) });
  else if (nonNull.length > 1) out.anyOf = nonNull.map((s) => convert(s, root, depth));
}

/** `allOf`: an intersection of object schemas, merged (the common case: a base model plus extras). */
function convertAllOf(schema: Schema, out: Schema, root: Schema, depth: number): void {
  if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) return;
  const parts = schema.allOf.map((s) => convert(s, root, depth));
  const merged: Schema = {};
  const props: Schema = {};
  const required: string[] = [];
  for (const p of parts) {
    Object.assign(merged, p);
    if (isObj(p.properties)) Object.assign(props, p.properties);
    if (Array.isArray(p.required)) required.push(...(p.required as string[]));
  }
  if (Object.keys(props).length > 0) merged.properties = props;
  if (required.length > 0) merged.required = [...new Set(required)];
  Object.assign(out, merged, dropUndefined(out));
}

const dropUndefined = (o: Schema): Schema => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/**
 * Convert a tool's input schema (or a response schema). Returns undefined for an object schema without
 * properties: Gemini wants `parameters` left out rather than empty.
 */
export function convertJsonSchemaToGemini(schema: Record<string, unknown> | undefined): Schema | undefined {
  if (!schema) return undefined;
  const out = convert(schema, schema, 0);
  if ((out.type === "object" || out.type === undefined) && out.properties === undefined && out.anyOf === undefined) return undefined;
  return out;
}
