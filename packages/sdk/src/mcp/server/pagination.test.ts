import { describe, expect, test } from "bun:test";
import { McpError } from "../../wire/errors.ts";
import { decodeCursor, encodeCursor, paginate } from "./pagination.ts";

describe("paginate", () => {
  const items = ["a", "b", "c", "d", "e"];

  test("walks every page with opaque cursors", () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = paginate(items, cursor, 2);
      seen.push(...r.page);
      cursor = r.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(seen).toEqual(items);
    expect(pages).toBe(3);
    expect(paginate(items, undefined, 10)).toEqual({ page: items });
  });

  test("cursors round-trip and do not look like numbers", () => {
    expect(decodeCursor(encodeCursor(40))).toBe(40);
    expect(encodeCursor(40)).not.toContain("40");
  });

  test("a cursor we did not issue is -32602; one past the end is an empty last page", () => {
    for (const bad of ["", "abc", "!!!", btoa("agentd:-1"), btoa("agentd:1.5"), btoa("other:2")]) {
      const e = (() => {
        try {
          paginate(items, bad, 2);
        } catch (x) {
          return x;
        }
      })();
      expect(McpError.isInstance(e) && e.code).toBe(-32602);
    }
    expect(paginate(items, encodeCursor(99), 2)).toEqual({ page: [] });
  });
});
