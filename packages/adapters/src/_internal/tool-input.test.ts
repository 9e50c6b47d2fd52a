import { expect, test } from "bun:test";
import { generateToolCallId, parseToolInput } from "./tool-input.ts";

test("parseToolInput reads what models and gateways send", () => {
  expect(parseToolInput('{"a":1}')).toEqual({ a: 1 });
  expect(parseToolInput({ a: 1 })).toEqual({ a: 1 });
  expect(parseToolInput("")).toEqual({});
  expect(parseToolInput("  ")).toEqual({});
  expect(parseToolInput(undefined)).toEqual({});
  expect(parseToolInput(null)).toEqual({});
  expect(parseToolInput('"{\\"a\\":2}"')).toEqual({ a: 2 });
  expect(parseToolInput('```json\n{"a":3}\n```')).toEqual({ a: 3 });
  expect(parseToolInput("[1,2]")).toEqual({});
  expect(parseToolInput('{"a":')).toEqual({});
});

test("generated ids are unique and prefixed", () => {
  const ids = new Set(Array.from({ length: 100 }, generateToolCallId));
  expect(ids.size).toBe(100);
  for (const id of ids) expect(id).toMatch(/^call_[0-9a-f]{24}$/);
});
