/**
 * Structured output: when a run has an `outputSchema`, its final answer must be JSON that validates
 * against it. The answer is read tolerantly (the whole text, a fenced ```json block, or an object
 * embedded in prose) and the first candidate that validates wins; otherwise the errors go back to the
 * model in a corrective message, a bounded number of times.
 */
import { validateJsonSchema } from "../_internal/json-schema.ts";
import { extractJsonObjects } from "../model/json-action.ts";

/** Default number of re-asks after a final answer that does not match the schema. */
export const DEFAULT_MAX_OUTPUT_RETRIES = 2;

/** A parsed final answer, or why it is not one. */
export type ParsedOutput = { ok: true; value: unknown } | { ok: false; errors: string[] };

/** The system-prompt paragraph asking for the shape. */
export const outputInstruction = (schema: Record<string, unknown>): string =>
  "Your final answer must be a single JSON value that validates against this JSON Schema, with no other text:\n" + JSON.stringify(schema);

/** The corrective message after a mismatch. */
export const outputCorrection = (errors: string[], jsonActions = false): string =>
  `Your final answer did not match the required JSON Schema:\n- ${errors.join("\n- ")}\n` +
  (jsonActions
    ? 'Reply again with {"action":"final","result":<the corrected JSON value>}.'
    : "Reply again with only the corrected JSON value.");

const FENCED = /```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)```/g;

const tryParse = (s: string): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(s) as unknown };
  } catch {
    return undefined;
  }
};

/** Candidate JSON values in an answer, most literal first. */
function candidates(text: string): unknown[] {
  const out: unknown[] = [];
  const whole = tryParse(text.trim());
  if (whole) out.push(whole.value);
  for (const m of text.matchAll(FENCED)) {
    const inner = tryParse((m[1] ?? "").trim());
    if (inner) out.push(inner.value);
  }
  out.push(...extractJsonObjects(text));
  return out;
}

/** Check a value that is already JSON (e.g. a JSON-action `result` that is not a string). */
export function checkOutputValue(value: unknown, schema: Record<string, unknown>): ParsedOutput {
  const r = validateJsonSchema(schema, value);
  return r.valid ? { ok: true, value } : { ok: false, errors: r.errors };
}

/** Read a final answer's text as a value matching `schema`. */
export function parseStructuredOutput(text: string, schema: Record<string, unknown>): ParsedOutput {
  const found = candidates(text);
  let firstErrors: string[] | undefined;
  for (const value of found) {
    const r = checkOutputValue(value, schema);
    if (r.ok) return r;
    firstErrors ??= r.errors;
  }
  // A schema that wants a plain string may be answered in plain prose.
  const plain = checkOutputValue(text.trim(), schema);
  if (plain.ok && found.length === 0) return plain;
  return { ok: false, errors: firstErrors ?? ["the answer contains no JSON value"] };
}
