import { describe, expect, test } from "bun:test";
import { Emitter } from "./emitter.ts";

describe("Emitter", () => {
  test("delivers, unsubscribes, runs once-listeners once, and survives a throwing listener", () => {
    const errors: string[] = [];
    const e = new Emitter<{ n: number; done: void }>((event) => errors.push(event));
    const got: number[] = [];
    const off = e.on("n", (x) => got.push(x));
    e.on("n", () => {
      throw new Error("listener bug");
    });
    let done = 0;
    e.once("done", () => done++);
    e.emit("n", 1);
    off();
    e.emit("n", 2);
    e.emit("done");
    e.emit("done");
    expect(got).toEqual([1]);
    expect(done).toBe(1);
    expect(errors).toEqual(["n", "n"]);
    expect(e.listenerCount("n")).toBe(1);
  });
});
