import { describe, expect, test } from "bun:test";
import { classify } from "./jsonrpc.ts";
import { referenceClassify } from "./__fixtures__/classify-reference.ts";

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

test("classify agrees with its previous, untuned form on every combination of envelope members", () => {
  const ABSENT = Symbol("absent");
  const values: Record<string, unknown[]> = {
    jsonrpc: [ABSENT, "2.0", "1.0", undefined],
    id: [ABSENT, 1, "a", null, undefined, 1.5, Number.POSITIVE_INFINITY, {}],
    method: [ABSENT, "ping", 3, undefined],
    params: [ABSENT, {}, [1], null, undefined],
    result: [ABSENT, {}, [], null, undefined],
    error: [ABSENT, { code: 1, message: "m" }, { code: 1.5, message: "m" }, { code: 1 }, null, undefined],
  };
  const keys = Object.keys(values);
  let compared = 0;
  const wrong: string[] = [];
  const kinds = new Set<string>();
  const build = (i: number, m: Record<string, unknown>) => {
    if (i === keys.length) {
      compared++;
      const ours = classify(m);
      kinds.add(ours.kind === "invalid" ? `invalid: ${ours.reason}` : ours.kind);
      if (!Bun.deepEquals(ours, referenceClassify(m), true)) wrong.push(String(compared));
      return;
    }
    const key = keys[i] as string;
    for (const x of values[key] as unknown[]) build(i + 1, x === ABSENT ? m : { ...m, [key]: x });
  };
  build(0, {});
  for (const x of [
    null,
    undefined,
    "s",
    1,
    true,
    [],
    [{ jsonrpc: "2.0" }],
    () => 1,
    Object.create({ jsonrpc: "2.0", id: 1, method: "m" }),
  ]) {
    compared++;
    if (!Bun.deepEquals(classify(x), referenceClassify(x), true)) wrong.push(String(x));
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(compared).toBeGreaterThan(10_000);
  expect(kinds.size).toBeGreaterThan(12); // every kind and every reason came up
});

test("errorResponse omits an unknown id rather than sending null", async () => {
  const { errorResponse } = await import("./jsonrpc.ts");
  expect(errorResponse(null, -32700, "Parse error")).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } });
  expect(errorResponse(4, -32601, "nope")).toEqual({ jsonrpc: "2.0", id: 4, error: { code: -32601, message: "nope" } });
});
