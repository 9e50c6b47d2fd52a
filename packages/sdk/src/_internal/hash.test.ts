/** `_internal/hash.ts` gives the same digests as `node:crypto` (the keys it makes are stored on disk). */
import { createHash } from "node:crypto";
import { expect, test } from "bun:test";
import { randomUuid, sha256, sha256Bytes } from "./hash.ts";

test("sha256 matches node:crypto for text and bytes, in hex, base64url and raw bytes", () => {
  for (const input of ["", "abc", "héllo ✓ 🙂", new Uint8Array([0, 1, 2, 255])]) {
    expect(sha256(input, "hex")).toBe(createHash("sha256").update(input).digest("hex"));
    expect(sha256(input, "base64url")).toBe(createHash("sha256").update(input).digest("base64url"));
    expect([...sha256Bytes(input)]).toEqual([...createHash("sha256").update(input).digest()]);
  }
});

test("randomUuid is a version-4 UUID, fresh each call", () => {
  const a = randomUuid();
  expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(randomUuid()).not.toBe(a);
});
