import { expect, test } from "bun:test";
import { expandEnv } from "./expand.ts";

test("an empty variable is reported as empty, not as unset", () => {
  expect(() => expandEnv({ h: "Bearer ${TOK}" }, { TOK: "" })).toThrow(
    "config.h: environment variable TOK is empty (referenced as ${TOK})",
  );
  expect(() => expandEnv({ h: "Bearer ${TOK}" }, {})).toThrow("config.h: environment variable TOK is not set (referenced as ${TOK})");
});

test("a default covers an empty variable as well as an unset one", () => {
  expect(expandEnv("${TOK:-none}", { TOK: "" })).toBe("none");
  expect(expandEnv("${TOK:-none}", {})).toBe("none");
  expect(expandEnv("${TOK:-none}", { TOK: "set" })).toBe("set");
  expect(expandEnv("${TOK:-}", { TOK: "" })).toBe("");
});
