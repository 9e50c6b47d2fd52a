import { describe, expect, test } from "bun:test";
import { describeNetworkError, exhausted, httpError, providerMessage, scrub } from "./upstream-error.ts";

describe("providerMessage", () => {
  test("each dialect's error body", () => {
    expect(providerMessage('{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit"}}')).toBe(
      "requests: Rate limit reached",
    );
    expect(providerMessage('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe(
      "overloaded_error: Overloaded",
    );
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

describe("errors name what failed, in one line", () => {
  const subject = {
    provider: "openai-compatible",
    endpoint: "http://127.0.0.1:8080/v1",
    apiKeyHint: "the API key came from OPENAI_API_KEY",
  };
  test("an HTML error page: status, content type and a short plain-text excerpt", () => {
    const page = `<!DOCTYPE html>\n<html>\n<head><title>501 Not Implemented</title><style>body{color:red}</style></head>\n<body>\n  <h1>Not   Implemented</h1>\n  <p>The server does not support\n the action requested &amp; more.</p>\n${"<p>filler text</p>\n".repeat(40)}</body>\n</html>\n`;
    const e = httpError(subject, 501, page, [], { retryable: false, contentType: "text/html; charset=utf-8" });
    expect(e.message).not.toContain("\n");
    expect(e.message).not.toContain("<");
    expect(e.message).toStartWith(
      "model endpoint http://127.0.0.1:8080/v1 returned HTTP 501 (text/html): Not Implemented The server does not support the action requested & more. filler text",
    );
    expect(e.message.length).toBeLessThan(320);
  });
  test("a 401 or 403 says where the key came from (never the key); other statuses do not", () => {
    expect(httpError(subject, 401, '{"error":{"message":"Incorrect API key"}}', [], { retryable: false }).message).toBe(
      "model endpoint http://127.0.0.1:8080/v1 returned HTTP 401: Incorrect API key (the API key came from OPENAI_API_KEY)",
    );
    expect(httpError(subject, 403, "", [], { retryable: false }).message).toEndWith("HTTP 403 (the API key came from OPENAI_API_KEY)");
    expect(httpError(subject, 404, "", [], { retryable: false }).message).toBe("model endpoint http://127.0.0.1:8080/v1 returned HTTP 404");
  });
  test("a refused connection in words, not the runtime's sentence", () => {
    const bun = Object.assign(new TypeError("ECONNREFUSED: Unable to connect. Is the computer able to access the url?"), {
      code: "ECONNREFUSED",
    });
    expect(describeNetworkError(bun)).toBe("connection refused");
    expect(describeNetworkError(Object.assign(new TypeError("fetch failed"), { cause: { code: "ENOTFOUND" } }))).toBe("host not found");
    expect(describeNetworkError(Object.assign(new TypeError("odd"), { code: "EWHAT" }))).toBe("connection failed (EWHAT)");
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
    expect(spent.message).toBe("anthropic returned HTTP 529 (3 attempts)");
    expect(spent.options.data).toEqual({ status: 529, provider: "anthropic", retryAfterMs: 10, attempts: 3 });
  });
});

test("credential-like extra headers count as secrets too", async () => {
  const { resolveHttpSettings } = await import("./settings.ts");
  const s = resolveHttpSettings("p", {
    model: "m",
    apiKey: "k-123",
    headers: { "x-gateway-token": "Bearer gw-token-777", "x-route": "blue-route-1" },
  });
  expect(s.secrets).toEqual(["k-123", "gw-token-777"]);
});
