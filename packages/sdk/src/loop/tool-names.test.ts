import { describe, expect, test } from "bun:test";
import { createToolNameMap, PROVIDER_NAME } from "./tool-names.ts";

describe("createToolNameMap", () => {
  test("qualified names become provider-safe names and map back", () => {
    const names = ["fs/read_file", "my.server/do/thing", "self-tool", "ünï/cödé"];
    const map = createToolNameMap(names);
    expect(map.toProvider("fs/read_file")).toBe("fs__read_file");
    expect(map.toProvider("self-tool")).toBe("self-tool");
    for (const q of names) {
      const p = map.toProvider(q) as string;
      expect(p).toMatch(PROVIDER_NAME);
      expect(map.toQualified(p)).toBe(q);
    }
  });

  test("names that sanitise alike are told apart", () => {
    const map = createToolNameMap(["a.b/c", "a_b/c", "a b/c"]);
    const provider = ["a.b/c", "a_b/c", "a b/c"].map((q) => map.toProvider(q) as string);
    expect(new Set(provider).size).toBe(3);
    expect(provider[0]).toBe("a_b__c");
    for (const [i, q] of ["a.b/c", "a_b/c", "a b/c"].entries()) expect(map.toQualified(provider[i] as string)).toBe(q);
  });

  test("long names are cut to 64 characters with a hash that keeps them distinct", () => {
    const long1 = `server/${"x".repeat(100)}_one`;
    const long2 = `server/${"x".repeat(100)}_two`;
    const map = createToolNameMap([long1, long2]);
    const p1 = map.toProvider(long1) as string;
    const p2 = map.toProvider(long2) as string;
    expect(p1.length).toBe(64);
    expect(p1).toMatch(PROVIDER_NAME);
    expect(p1).not.toBe(p2);
    expect(map.toQualified(p1)).toBe(long1);
    expect(map.toQualified(p2)).toBe(long2);
  });

  test("deterministic for a given list, and qualified names are accepted back as themselves", () => {
    const a = createToolNameMap(["x/y", "x.y", `z/${"q".repeat(80)}`]);
    const b = createToolNameMap(["x/y", "x.y", `z/${"q".repeat(80)}`]);
    for (const q of ["x/y", "x.y"]) expect(a.toProvider(q)).toBe(b.toProvider(q) as string);
    expect(a.toQualified("x/y")).toBe("x/y");
    expect(a.toQualified("nope")).toBeUndefined();
    expect(a.toProvider("nope")).toBeUndefined();
  });
});
