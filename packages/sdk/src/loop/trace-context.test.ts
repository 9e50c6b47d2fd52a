import { describe, expect, test } from "bun:test";
import { isTraceparent, traceCarrierFromMeta } from "./trace-context.ts";

const GOOD = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("W3C trace context from _meta", () => {
  test("a valid traceparent, with or without tracestate", () => {
    expect(traceCarrierFromMeta({ traceparent: GOOD })).toEqual({ traceparent: GOOD });
    expect(traceCarrierFromMeta({ traceparent: GOOD, tracestate: "a=1,b=2" })).toEqual({ traceparent: GOOD, tracestate: "a=1,b=2" });
  });
  test("absent or malformed values give no carrier (a fresh trace), never an error", () => {
    expect(traceCarrierFromMeta(undefined)).toBeUndefined();
    expect(traceCarrierFromMeta({})).toBeUndefined();
    for (const bad of [
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // all-zero trace id
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", // all-zero span id
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", // forbidden version
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", // upper case
      "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01", // short
      42,
    ])
      expect(traceCarrierFromMeta({ traceparent: bad })).toBeUndefined();
  });
  test("an oversized tracestate is dropped, the traceparent kept", () => {
    expect(traceCarrierFromMeta({ traceparent: GOOD, tracestate: "a=".padEnd(600, "x") })).toEqual({ traceparent: GOOD });
    expect(isTraceparent(GOOD)).toBe(true);
  });
});
