import { expect, test } from "bun:test";
import { memoryLogger, redact, scrubSecrets } from "./log.ts";
import { registerSecretValue } from "./secret-values.ts";

test("credential-like keys are masked at any depth, arrays included", () => {
  const r = redact({
    headers: [
      ["Authorization", "Bearer sk-live-AAAAAAAAAAAAAAAA"],
      ["Accept", "text/plain"],
    ],
    list: [{ apiKey: "k1" }, { privateKey: "k2" }],
    auth: "whatever",
    credentials: { user: "u" },
    nested: { deeper: { x_api_key: "k3", ok: 1 } },
    turns: 3,
  });
  expect(r).toEqual({
    headers: [
      ["Authorization", "[redacted]"],
      ["Accept", "text/plain"],
    ],
    list: [{ apiKey: "[redacted]" }, { privateKey: "[redacted]" }],
    auth: "[redacted]",
    credentials: "[redacted]",
    nested: { deeper: { x_api_key: "[redacted]", ok: 1 } },
    turns: 3,
  });
});

test("credential-shaped values are scrubbed wherever they appear", () => {
  expect(scrubSecrets("upstream said 401 for Bearer abcdefghijklmnop")).toBe("upstream said 401 for Bearer [redacted]");
  expect(scrubSecrets("key sk-live-1234567890abcdef used")).toBe("key [redacted] used");
  expect(scrubSecrets("ghp_abcdefghijklmnopqrstuvwxyz0123")).toBe("[redacted]");
  expect(scrubSecrets("a normal sentence with a token-free value")).toBe("a normal sentence with a token-free value");
  const log = memoryLogger();
  log.error("x", { error: new Error("failed with Bearer zzzzzzzzzzzzzzzz"), line: "stderr: sk-abcdefghijklmnopqrstu" });
  expect(JSON.stringify(log.records)).not.toContain("zzzzzzzz");
  expect(JSON.stringify(log.records)).not.toContain("sk-abcdefghijklmnop");
});

test("field names that merely contain 'auth' or 'key' are kept", () => {
  expect(redact({ authMethod: "bearer", author: "ada", keyCount: 3, monkey: "x", tokensUsed: 5 })).toEqual({
    authMethod: "bearer",
    author: "ada",
    keyCount: 3,
    monkey: "x",
    tokensUsed: 5,
  });
  expect(redact({ basicAuth: "u:p", accessToken: "t", x_api_key: "k", Authorization: "B" })).toEqual({
    basicAuth: "[redacted]",
    accessToken: "[redacted]",
    x_api_key: "[redacted]",
    Authorization: "[redacted]",
  });
});

test("a field name's verdict is the same the second time, and past the remembered names' bound", () => {
  const fields = { apiKey: "k", keyCount: 1, sessionToken: "t", author: "ada" };
  const expected = { apiKey: "[redacted]", keyCount: 1, sessionToken: "[redacted]", author: "ada" };
  expect(redact(fields)).toEqual(expected);
  expect(redact(fields)).toEqual(expected);
  // More distinct names than are remembered: names asked after the bound are still judged.
  for (let i = 0; i < 1100; i++)
    expect(redact({ [`field${i}`]: "v", [`field${i}Secret`]: "s" })).toEqual({ [`field${i}`]: "v", [`field${i}Secret`]: "[redacted]" });
  expect(redact({ refreshToken: "r", tokenizer: "bpe" })).toEqual({ refreshToken: "[redacted]", tokenizer: "bpe" });
});

test("a registered secret value is masked wherever it appears, as is, JSON-escaped or URL-encoded; short ones are left alone", () => {
  registerSecretValue('gw"7Hq2/Zp X9');
  registerSecretValue("abc");
  expect(scrubSecrets('header x-gw: gw"7Hq2/Zp X9; again gw"7Hq2/Zp X9')).toBe("header x-gw: [redacted]; again [redacted]");
  expect(scrubSecrets(JSON.stringify({ echoed: 'gw"7Hq2/Zp X9' }))).toBe('{"echoed":"[redacted]"}');
  expect(scrubSecrets(`https://h/p?k=${encodeURIComponent('gw"7Hq2/Zp X9')}`)).toBe("https://h/p?k=[redacted]");
  expect(scrubSecrets("abc abcdef")).toBe("abc abcdef");
  const logger = memoryLogger();
  logger.error("model.failed", { error: 'upstream said: gw"7Hq2/Zp X9', nested: { list: ['gw"7Hq2/Zp X9'] } });
  expect(JSON.stringify(logger.records)).not.toContain("7Hq2");
});
