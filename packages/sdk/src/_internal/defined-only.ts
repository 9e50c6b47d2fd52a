/**
 * The entries of an options object that are set. `{ ...defaults, ...options }` lets an `undefined` in
 * `options` overwrite a default (the compiler allows `{ x: undefined }` for an optional `x`); merging
 * `definedOnly(options)` instead is the one fix at the merge site, so callers may pass `x: maybe`
 * without a `...(maybe ? { x: maybe } : {})` guard.
 */
export function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
