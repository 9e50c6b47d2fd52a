/**
 * The defined entries of an options object, for merging it over defaults: `{ ...DEFAULTS, ...withoutUndefined(options) }`.
 * With `exactOptionalPropertyTypes` off, `{ x: undefined }` type-checks as `{ x?: T }`, and a plain spread would let that
 * explicit `undefined` overwrite the default. Callers then write options as plain objects (`{ x, y }`), absent or not.
 */
export function withoutUndefined<T extends object>(o: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  if (o) for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
