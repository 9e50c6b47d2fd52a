/**
 * Server-side pagination with opaque cursors (pagination spec): the cursor encodes a position in the
 * list; clients must not parse it, and a cursor we did not issue is -32602 (Invalid params).
 */
import { invalidParams } from "../../wire/errors.ts";

/** Default number of items per page. */
export const DEFAULT_PAGE_SIZE = 100;

const PREFIX = "agentd:";

/** Encode a position as an opaque cursor. */
export function encodeCursor(offset: number): string {
  return btoa(`${PREFIX}${offset}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Decode a cursor we issued; throws -32602 for anything else. */
export function decodeCursor(cursor: string): number {
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw invalidParams("invalid cursor");
  }
  if (!text.startsWith(PREFIX)) throw invalidParams("invalid cursor");
  const digits = text.slice(PREFIX.length);
  if (!/^(0|[1-9]\d{0,9})$/.test(digits)) throw invalidParams("invalid cursor");
  return Number(digits);
}

/** One page of `items` starting at `cursor`, with the cursor of the next page when more remain. */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize = DEFAULT_PAGE_SIZE,
): { page: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  // A cursor past the end (the list shrank since it was issued) is an empty last page, not an error.
  const end = start + Math.max(1, pageSize);
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: encodeCursor(end) } : { page };
}
