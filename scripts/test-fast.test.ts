/** The fast loop's selection: every file it leaves out by name exists, and it keeps the unit tests. */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fastTestFiles, LEFT_OUT_BY_RULE, SLOW_FILES } from "./test-fast.ts";

const ROOT = join(import.meta.dir, "..");

test("every slow file named still exists, and none is already left out by a rule", () => {
  for (const f of SLOW_FILES) {
    expect(existsSync(join(ROOT, f)), f).toBe(true);
    expect(
      LEFT_OUT_BY_RULE.some((r) => r.test(f)),
      f,
    ).toBe(false);
  }
});

test("the fast set keeps unit tests and leaves out system tests", () => {
  const files = fastTestFiles(ROOT);
  expect(files).toContain("packages/sdk/src/layers.test.ts");
  expect(files).toContain("packages/sdk/src/wire/sse-parse.test.ts");
  expect(files.some((f) => f.endsWith(".e2e.test.ts"))).toBe(false);
  expect(files.some((f) => f.startsWith("e2e/"))).toBe(false);
  expect(files.length).toBeGreaterThan(150);
});
