/**
 * Telling a value a handler returned at once from one it promised. Hot request paths answer a synchronous
 * result within the turn it was asked in, instead of awaiting it (an `await` of a plain value still costs
 * a promise and a turn per frame).
 */

/** Whether `value` is a promise or any other thenable (what `await` would wait on). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function"
  );
}
