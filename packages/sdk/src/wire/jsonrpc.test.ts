import { describe, expect, test } from "bun:test";
import { classify } from "./jsonrpc.ts";

describe("classify", () => {
  test("request, notification, result, error", () => {
    expect(classify({ jsonrpc: "2.0", id: 1, method: "ping" }).kind).toBe("request");
    expect(classify({ jsonrpc: "2.0", method: "notifications/initialized" }).kind).toBe("notification");
    expect(classify({ jsonrpc: "2.0", id: "a", result: {} }).kind).toBe("result");
    expect(classify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "x" } }).kind).toBe("error");
    expect(classify({ jsonrpc: "2.0", error: { code: -32700, message: "x" } }).kind).toBe("error");
  });
  test("invalid shapes keep the id when it can be read", () => {
    const r = classify({ jsonrpc: "1.0", id: 7, method: "ping" });
    expect(r).toEqual({ kind: "invalid", id: 7, reason: 'jsonrpc must be "2.0"' });
    expect(classify({ jsonrpc: "2.0", id: 3, method: "x", params: [1] }).kind).toBe("invalid");
    expect(classify({ jsonrpc: "2.0", id: null, method: "x" })).toMatchObject({ kind: "invalid", id: null });
    expect(classify("hello").kind).toBe("invalid");
    expect(classify([1, 2]).kind).toBe("batch");
  });
});

test("errorResponse omits an unknown id rather than sending null", async () => {
  const { errorResponse } = await import("./jsonrpc.ts");
  expect(errorResponse(null, -32700, "Parse error")).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } });
  expect(errorResponse(4, -32601, "nope")).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32601, message: "nope" } });
});
