/** Run by scripts/test-sh.test.ts through scripts/test.sh: one pass, one skip (never picked up on its own). */
import { expect, test } from "bun:test";

test("passes", () => expect(1 + 1).toBe(2));
test.skipIf(true)("is skipped", () => expect(true).toBe(false));
