import { expect, test } from "bun:test";
import {
  forgetSecretValue,
  hasSecretValues,
  maskErrorSecrets,
  maskSecretValues,
  maskSecrets,
  MIN_SECRET_CHARS,
  registerSecretValue,
} from "./secret-values.ts";

// The registry is process-wide: each test uses values of its own.

test("a registered value is masked as is, JSON-escaped and URL-encoded; a longer one containing it is masked whole", () => {
  registerSecretValue('sv"Q7m/Zp 2w');
  registerSecretValue('sv"Q7m/Zp 2w-and-more');
  expect(hasSecretValues()).toBe(true);
  expect(maskSecretValues('a sv"Q7m/Zp 2w b')).toBe("a [redacted] b");
  expect(maskSecretValues(JSON.stringify({ k: 'sv"Q7m/Zp 2w' }))).toBe('{"k":"[redacted]"}');
  expect(maskSecretValues(`?k=${encodeURIComponent('sv"Q7m/Zp 2w')}`)).toBe("?k=[redacted]");
  expect(maskSecretValues('x sv"Q7m/Zp 2w-and-more y')).toBe("x [redacted] y");
});

test(`values shorter than ${MIN_SECRET_CHARS} characters are never masked (they would garble ordinary text)`, () => {
  registerSecretValue("true");
  registerSecretValue("12345");
  expect(maskSecretValues("true 12345 info")).toBe("true 12345 info");
});

test("structured values are masked in every string, keys kept; what holds no secret is the same object", () => {
  registerSecretValue("deep-Secret-81xq");
  const clean = { a: [1, "two", { three: null }], b: true };
  expect(maskSecrets(clean)).toBe(clean);
  const dirty = { kept: clean, list: ["ok", "see deep-Secret-81xq"], nested: { at: { last: "deep-Secret-81xq" } }, n: 4 };
  const masked = maskSecrets(dirty);
  expect(masked).toEqual({ kept: clean, list: ["ok", "see [redacted]"], nested: { at: { last: "[redacted]" } }, n: 4 });
  expect(masked.kept).toBe(clean);
  expect(dirty.list[1]).toBe("see deep-Secret-81xq"); // the input is never changed
  expect(maskSecrets("deep-Secret-81xq")).toBe("[redacted]");
});

test("past the depth bound a value holding a secret is masked whole; one that does not is kept", () => {
  registerSecretValue("bottom-Secret-5k2");
  let dirty: unknown = "bottom-Secret-5k2";
  let clean: unknown = "plain";
  for (let i = 0; i < 200; i++) {
    dirty = [dirty];
    clean = { c: clean };
  }
  expect(JSON.stringify(maskSecrets(dirty))).not.toContain("bottom-Secret-5k2");
  expect(maskSecrets(clean)).toBe(clean);
});

test("an error's message and stack are masked in place", () => {
  registerSecretValue("err-Secret-00aa");
  const e = new Error("upstream said: err-Secret-00aa");
  expect(maskErrorSecrets(e)).toBe(e);
  expect(e.message).toBe("upstream said: [redacted]");
  expect(e.stack).not.toContain("err-Secret-00aa");
  expect(maskErrorSecrets("not an error")).toBe("not an error");
});

test("a forgotten value (a replaced access token) is no longer masked", () => {
  registerSecretValue("old-Token-7788zz");
  expect(maskSecretValues("old-Token-7788zz")).toBe("[redacted]");
  forgetSecretValue("old-Token-7788zz");
  expect(maskSecretValues("old-Token-7788zz")).toBe("old-Token-7788zz");
});
