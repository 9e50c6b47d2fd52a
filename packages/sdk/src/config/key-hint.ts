/**
 * The did-you-mean of an unknown config key (`limits.maxTurn` → "maxTurns"): the keys the schema takes at
 * that place, found by walking the configuration schema along the issue's path, and the closest of them.
 * Only plain nesting is walked (optional, nullable, strict objects, records, arrays); a key under a union
 * or a lazily chosen schema gets no hint (the `mcpServers` entries say their own, see `server-entry.ts`).
 */
import type * as v from "valibot";
import { ConfigSchema } from "./schema.ts";
import { closest } from "./server-entry.ts";

type AnySchema = v.GenericSchema & { entries?: Record<string, AnySchema>; wrapped?: AnySchema; value?: AnySchema; item?: AnySchema };

/** Unwrap optional / nullable / nullish / pipe to the schema that holds the entries. */
function unwrap(schema: AnySchema | undefined): AnySchema | undefined {
  let s = schema;
  while (s?.wrapped) s = s.wrapped;
  return s;
}

/** The keys the schema takes at `path` (the path of the object holding the key), if it is an object there. */
export function keysAt(path: readonly PropertyKey[], root: AnySchema = ConfigSchema as unknown as AnySchema): string[] | undefined {
  let s = unwrap(root);
  for (const key of path) {
    if (!s) return undefined;
    if (s.type === "strict_object" || s.type === "object") s = unwrap(s.entries?.[String(key)]);
    else if (s.type === "record") s = unwrap(s.value);
    else if (s.type === "array") s = unwrap(s.item);
    else return undefined;
  }
  return s && (s.type === "strict_object" || s.type === "object") && s.entries ? Object.keys(s.entries) : undefined;
}

/**
 * Where `key` belongs one level down from the object at `path`: `schedules[].cron` for a `cron` written
 * directly under `triggers` (an entry whose object, or whose array's items, take that key).
 */
export function nestedPlaceOf(path: readonly PropertyKey[], key: string): string | undefined {
  for (const entry of keysAt(path) ?? []) {
    if (keysAt([...path, entry])?.includes(key)) return `${entry}.${key}`;
    if (keysAt([...path, entry, 0])?.includes(key)) return `${entry}[].${key}`;
  }
  return undefined;
}

/**
 * "unknown field; did you mean "maxTurns"?" for an unknown key close to a known one, or "…it belongs in
 * "schedules[].cron"" for a key that one level down takes; else undefined.
 */
export function unknownKeyHint(issue: v.BaseIssue<unknown>): string | undefined {
  if (issue.type !== "strict_object" || issue.expected !== "never") return undefined;
  const path = (issue.path ?? []).map((p) => p.key as PropertyKey);
  const key = path.at(-1);
  if (typeof key !== "string") return undefined;
  const parent = path.slice(0, -1);
  const known = keysAt(parent);
  const hint = known ? closest(key, known) : undefined;
  if (hint) return `unknown field; did you mean "${hint}"?`;
  const nested = nestedPlaceOf(parent, key);
  const here = parent.filter((p) => typeof p === "string").join(".");
  return nested ? `unknown field here; "${key}" belongs in ${here ? `${here}.` : ""}${nested}` : undefined;
}
