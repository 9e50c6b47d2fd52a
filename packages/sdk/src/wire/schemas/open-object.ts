/**
 * JSON objects for valibot. valibot's object and record schemas accept arrays (`typeof [] === "object"`),
 * but JSON Schema's `type: "object"` does not: `capabilities: []` or `arguments: [1]` must be rejected, as
 * the official schema rejects them. These wrappers add that one check and are otherwise the valibot
 * schemas (same type, same `entries`), so `v.variant` and spreading `.entries` keep working.
 */
import * as v from "valibot";

type Dataset = { value: unknown; typed?: boolean; issues?: v.BaseIssue<unknown>[] };
type AnyObjectSchema = v.GenericSchema & { type: string };

/** Make `schema` reject arrays, in place (the schema is freshly built by the caller). */
function rejectArrays<S extends AnyObjectSchema>(schema: S): S {
  const run = schema["~run"];
  const patched = {
    "~run"(this: S, dataset: Dataset, config: v.Config<v.BaseIssue<unknown>>) {
      if (!Array.isArray(dataset.value)) return run.call(this, dataset as never, config);
      const issue: v.BaseIssue<unknown> = {
        kind: "schema",
        type: schema.type,
        input: dataset.value,
        expected: "Object",
        received: "Array",
        message: "Invalid type: Expected Object but received Array",
        requirement: undefined,
        path: undefined,
        issues: undefined,
        lang: config.lang,
        abortEarly: config.abortEarly,
        abortPipeEarly: config.abortPipeEarly,
      };
      dataset.typed = false;
      dataset.issues = [issue];
      return dataset;
    },
  };
  return Object.assign(schema, patched);
}

/** An open JSON object with known entries: unknown keys pass through, arrays are rejected. */
export const looseObject = <const E extends v.ObjectEntries>(entries: E) => rejectArrays(v.looseObject(entries));

/** A JSON object whose values all match `value` (keys are strings); arrays are rejected. */
export const record = <const V extends v.GenericSchema>(value: V) => rejectArrays(v.record(v.string(), value));
