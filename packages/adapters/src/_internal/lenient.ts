/**
 * Lenient readers for provider JSON: every field may be missing, null, or of a surprising type, and the
 * adapters read what is there instead of rejecting the response (gateways differ in what they fill in).
 * These are the hand-written equivalent of a schema whose every field is `nullish`.
 */

/** The value as a plain object, or an empty one. */
export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The value as an array, or an empty one. */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The value as a string, or undefined (null, numbers and objects are not strings). */
export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The value as a finite number, or undefined. */
export const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Whether the value is a plain object. */
export const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
