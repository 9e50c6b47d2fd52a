/** Run by isolated-state.test.ts through `bun test` from each package's folder: the run's state directory is its own. */
import { expect, test } from "bun:test";
import { tmpdir } from "node:os";

test("the test run's state directory is a fresh one of its own, not the home's", () => {
  expect(process.env.XDG_STATE_HOME ?? "").toStartWith(tmpdir());
  expect(process.env.XDG_STATE_HOME ?? "").toContain("agentd-test-state-");
});
