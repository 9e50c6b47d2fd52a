import { expect, test } from "bun:test";
import { withoutUndefined } from "./without-undefined.ts";

test("an explicit undefined no longer overwrites a default; null, 0, false and '' still do", () => {
  const defaults = { a: 1, b: 2, c: "x", d: true as boolean | null };
  const given: Partial<typeof defaults> = { a: undefined, b: 0, c: "", d: null };
  expect({ ...defaults, ...withoutUndefined(given) }).toStrictEqual({ a: 1, b: 0, c: "", d: null });
  expect({ ...defaults, ...withoutUndefined(undefined) }).toStrictEqual(defaults);
});

test("keeps only own enumerable keys with a value", () => {
  expect(Object.keys(withoutUndefined({ x: undefined, y: 1 }))).toEqual(["y"]);
});
