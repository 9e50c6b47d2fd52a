/**
 * `bun test` reads the bunfig.toml of the folder it runs in: run from a package's folder, the repository's
 * preload would not apply and a test's local state (conversations, waiting runs, tokens) would land in the
 * developer's home. Each package with tests has its own bunfig.toml preloading isolated-state.ts; this runs
 * a probe from each folder, with a home of its own, and checks the state directory the probe saw.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PACKAGES = join(import.meta.dir, "..", "..");
const PROBE = join(import.meta.dir, "__fixtures__", "state-probe.test.ts");
const home = mkdtempSync(join(tmpdir(), "agentd-home-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The packages whose sources hold tests (a developer may run `bun test` in any of them). */
const withTests = readdirSync(PACKAGES).filter((p) => existsSync(join(PACKAGES, p, "package.json")) && hasTests(join(PACKAGES, p, "src")));

function hasTests(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).some((f) => f.endsWith(".test.ts"));
}

test.each(withTests)("bun test run from packages/%s gets a state directory of its own", async (pkg) => {
  const { XDG_STATE_HOME: _, ...env } = process.env;
  const child = Bun.spawn([process.execPath, "test", PROBE], {
    cwd: join(PACKAGES, pkg),
    env: { ...env, HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, out: `${out}${err}`.includes("1 pass") }).toEqual({ code: 0, out: true });
  expect(existsSync(join(home, ".local", "state", "agentd"))).toBe(false);
});

test("every package with tests is covered", () => {
  expect(withTests).toEqual(expect.arrayContaining(["adapters", "cli", "sdk", "testkit", "test-support"]));
});
