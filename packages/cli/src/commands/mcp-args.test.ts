import { describe, expect, test } from "bun:test";
import { buildPromptArguments, buildToolArguments, repeatedFlag } from "./mcp-args.ts";
import { renderTools, table } from "./mcp-render.ts";

describe("mcp argument helpers", () => {
  test("repeatedFlag keeps every value in order and stops at --", () => {
    expect(repeatedFlag(["call", "--arg", "a=1", "--arg=b=2", "-a", "c=3", "--", "--arg", "d=4"], "arg", "a")).toEqual([
      "a=1",
      "b=2",
      "c=3",
    ]);
    expect(() => repeatedFlag(["--arg"], "arg")).toThrow("--arg needs a value");
  });

  test("buildToolArguments: JSON base, --arg on top, typed by the schema", () => {
    const schema = {
      properties: { n: { type: "number" }, tags: { type: "array" }, name: { type: ["string", "null"] }, on: { type: "boolean" } },
    };
    expect(buildToolArguments('{"n":1,"keep":true}', ["n=2.5", 'tags=["a"]', "name=007", "on=false", "free=x"], schema)).toEqual({
      n: 2.5,
      keep: true,
      tags: ["a"],
      name: "007",
      on: false,
      free: "x",
    });
    expect(() => buildToolArguments("[1]", [], schema)).toThrow("must be a JSON object");
    expect(() => buildToolArguments(undefined, ["noequals"], schema)).toThrow("--arg expects KEY=VALUE or KEY:=JSON");
    expect(() => buildToolArguments(undefined, ["on=yes"], schema)).toThrow("--arg on expects true or false");
    expect(() => buildToolArguments(undefined, ["x:={bad"], schema)).toThrow("--arg x is not valid JSON");
  });

  test("buildPromptArguments keeps strings", () => {
    expect(buildPromptArguments(["file=a=b.ts", "n:=3"])).toEqual({ file: "a=b.ts", n: "3" });
  });

  test("tables align columns and cut the last one to the width", () => {
    expect(
      table(
        ["A", "B"],
        [
          ["long-name", "x"],
          ["s", "y"],
        ],
      ),
    ).toBe("A          B\nlong-name  x\ns          y\n");
    const tools = renderTools([{ name: "t", description: "d".repeat(100), inputSchema: { type: "object" } }], 40);
    expect(tools.split("\n").every((l) => l.length <= 40)).toBe(true);
    expect(tools).toContain("…");
  });
});
