import { describe, expect, test } from "bun:test";
import { compileUriTemplate } from "./uri-template.ts";

describe("compileUriTemplate", () => {
  test("{var} matches one segment and decodes it", () => {
    const t = compileUriTemplate("test://template/{id}/data");
    expect(t.variables).toEqual(["id"]);
    expect(t.match("test://template/42/data")).toEqual({ id: "42" });
    expect(t.match("test://template/a%2Fb/data")).toEqual({ id: "a/b" });
    expect(t.match("test://template/a/b/data")).toBeUndefined();
    expect(t.match("test://template//data")).toBeUndefined();
    expect(t.match("test://template/42/data/more")).toBeUndefined();
  });

  test("{+var} may span segments; literal regex characters are escaped", () => {
    const t = compileUriTemplate("file:///{+path}");
    expect(t.match("file:///home/u/notes.md")).toEqual({ path: "home/u/notes.md" });
    const dots = compileUriTemplate("a.b://{x}.json");
    expect(dots.match("a.b://cfg.json")).toEqual({ x: "cfg" });
    expect(dots.match("aXb://cfg.json")).toBeUndefined();
  });

  test("several variables; a malformed escape does not match", () => {
    const t = compileUriTemplate("db://{schema}/{table}");
    expect(t.match("db://public/users")).toEqual({ schema: "public", table: "users" });
    expect(t.match("db://public/%E0%A4%A")).toBeUndefined();
  });

  test("unsupported operators are refused with one clear line", () => {
    expect(() => compileUriTemplate("x://{a,b}")).toThrow(/only \{var\} and \{\+var\}/);
    expect(() => compileUriTemplate("x://s{?q}")).toThrow(/unsupported URI template/);
    expect(() => compileUriTemplate("x://{open")).toThrow(/unsupported URI template/);
  });
});
