import { describe, expect, test } from "bun:test";
import { ReadyGate } from "./ready-gate.ts";

describe("ReadyGate", () => {
  test("waiters are released together with the value, or with the error", async () => {
    const gate = new ReadyGate<number>();
    const a = gate.wait("a", 60_000);
    const b = gate.wait("b", 60_000);
    gate.open(7);
    expect(await Promise.all([a, b])).toEqual([7, 7]);
    const c = gate.wait("c", 60_000);
    gate.fail(new Error("down"));
    await expect(c).rejects.toThrow("down");
    expect(gate.size).toBe(0);
  });

  test("a waiter gives up at its own timeout or abort, and leaves nothing behind", async () => {
    const gate = new ReadyGate<number>();
    await expect(gate.wait("list", 5)).rejects.toMatchObject({ code: "E_TIMEOUT" });
    const ctrl = new AbortController();
    const w = gate.wait("call", 60_000, ctrl.signal);
    ctrl.abort();
    await expect(w).rejects.toMatchObject({ code: "E_ABORTED" });
    expect(gate.size).toBe(0);
  });

  test("a wait longer than setTimeout can hold (30 days, Infinity) does not time out at once", async () => {
    const gate = new ReadyGate<number>();
    const settled: string[] = [];
    const waits = [30 * 86_400_000, Infinity].map((ms) => gate.wait(`w${ms}`, ms).finally(() => settled.push(String(ms))));
    await new Promise((r) => setTimeout(r, 30)); // an overflowed timer fires after 1 ms
    expect(settled).toEqual([]);
    gate.open(1);
    expect(await Promise.all(waits)).toEqual([1, 1]);
    expect(gate.size).toBe(0);
  });
});
