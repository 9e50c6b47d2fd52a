/**
 * scripts/test.sh ends with one line computed from the real run: passes, failures and skips counted apart
 * (a test skipped with `test.skipIf` — e.g. one that needs `../shared` — is never reported as passed).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";

test("test.sh counts a skipped test as skipped, not passed", async () => {
  const root = join(import.meta.dir, "..");
  const run = Bun.spawn(["bash", "scripts/test.sh", "./scripts/__fixtures__/skip-sample.ts"], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()]);
  expect(out.trim().split("\n").at(-1)).toBe("1 passed, 0 failed, 1 skipped");
  expect(code).toBe(0);
});
