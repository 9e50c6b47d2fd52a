import { expect, test } from "bun:test";
import { definedOnly } from "./defined-only.ts";

test("an undefined option does not overwrite a default; null, 0 and false do", () => {
  const defaults = { maxTurns: 20, deadlineMs: 60_000, label: "a" as string | null, strict: true };
  const given: Partial<typeof defaults> = { maxTurns: undefined, deadlineMs: 0, label: null, strict: false };
  expect({ ...defaults, ...given }.maxTurns).toBeUndefined();
  expect({ ...defaults, ...definedOnly(given) }).toEqual({ maxTurns: 20, deadlineMs: 0, label: null, strict: false });
  expect(definedOnly(undefined)).toEqual({});
});
