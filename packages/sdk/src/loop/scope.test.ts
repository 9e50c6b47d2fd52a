import { describe, expect, test } from "bun:test";
import { compileScope } from "./scope.ts";

describe("compileScope", () => {
  test("no allow-list allows every tool; an empty one allows none", () => {
    expect(compileScope(undefined)("fs/read")).toBe(true);
    expect(compileScope({})("anything")).toBe(true);
    expect(compileScope({ allow: [] })("fs/read")).toBe(false);
  });

  test("exact names and globs over qualified names", () => {
    const allowed = compileScope({ allow: ["fs/*", "remote/search", "self_?"] });
    expect(allowed("fs/read_file")).toBe(true);
    expect(allowed("fs/dir/nested")).toBe(true);
    expect(allowed("remote/search")).toBe(true);
    expect(allowed("remote/searchx")).toBe(false);
    expect(allowed("remote/delete")).toBe(false);
    expect(allowed("fsx/read")).toBe(false);
    expect(allowed("self_a")).toBe(true);
    expect(allowed("self_ab")).toBe(false);
  });

  test("regex characters in names are literal", () => {
    const allowed = compileScope({ allow: ["a.b/(x)+"] });
    expect(allowed("a.b/(x)+")).toBe(true);
    expect(allowed("aXb/(x)+")).toBe(false);
    expect(compileScope({ allow: ["a.b/*"] })("aXb/t")).toBe(false);
  });
});
