import { describe, expect, test } from "bun:test";
import { exhausted, httpError, providerMessage, scrub } from "./upstream-error.ts";

describe("providerMessage", () => {
  test("each dialect's error body", () => {
    expect(providerMessage('{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit"}}')).toBe("requests: Rate limit reached");
    expect(providerMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe("overloaded_error: Overloaded");
    expect(providerMessage('{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}')).toBe("API key not valid.");
    expect(providerMessage('[{"error":{"code":429,"message":"Resource exhausted"}}]')).toBe("Resource exhausted");
    expect(providerMessage('{"object":"error","message":"max_tokens too large","type":"BadRequestError"}')).toBe("max_tokens too large");
    expect(providerMessage('{"detail":"Not Found"}')).toBe("Not Found");
    expect(providerMessage('{"error":"model not found"}')).toBe("model not found");
  });
  test("non-JSON text is kept, shortened; empty is empty", () => {
    expect(providerMessage("<html>502 Bad Gateway</html>")).toBe("<html>502 Bad Gateway</html>");
    expect(providerMessage("x".repeat(2000)).length).toBe(500);
    expect(providerMessage("  ")).toBe("");
  });
});

describe("secrets", () => {
  test("scrub removes every occurrence of a secret and bearer credentials", () => {
    expect(scrub("Incorrect API key provided: sk-abc123. Key sk-abc123 again", ["sk-abc123"])).toBe(
      "Incorrect API key provided: [redacted]. Key [redacted] again",
    );
    expect(scrub("header was Bearer eyJhbGciOiJIUzI1NiJ9.payload", [])).toBe("header was Bearer [redacted]");
  });
  test("httpError names provider and status, carries data, never the key", () => {
    const e = httpError("openai-compatible", 401, '{"error":{"message":"Incorrect API key provided: sk-live-999"}}', ["sk-live-999"], {
      retryable: false,
    });
    expect(e.code).toBe("E_UPSTREAM");
    expect(e.message).toBe("openai-compatible returned HTTP 401: Incorrect API key provided: [redacted]");
    expect(e.options.data).toEqual({ status: 401, provider: "openai-compatible" });
    const spent = exhausted(httpError("anthropic", 529, "", [], { retryable: true, retryAfterMs: 10 }), 3);
    expect(spent.retryable).toBe(false);
    expect(spent.message).toBe("anthropic returned HTTP 529 (gave up after 3 attempts)");
    expect(spent.options.data).toEqual({ status: 529, provider: "anthropic", retryAfterMs: 10, attempts: 3 });
  });
});

test("credential-like extra headers count as secrets too", async () => {
  const { resolveHttpSettings } = await import("./settings.ts");
  const s = resolveHttpSettings("p", { model: "m", apiKey: "k-123", headers: { "x-gateway-token": "Bearer gw-token-777", "x-route": "blue-route-1" } });
  expect(s.secrets).toEqual(["k-123", "gw-token-777"]);
});
