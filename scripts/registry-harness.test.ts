/**
 * The registry test finds node and npm the way a shell does. Here npm is reached only through a folder of
 * links laid out like Debian's package (`bin/npm -> ../share/nodejs/npm/bin/npm-cli.js`), where npm does not
 * sit in `<prefix>/bin` beside a `<prefix>/lib/node_modules/npm`: the harness must still find npm there and
 * run it, and the Node-only PATH it builds from such a folder must run npm and npx.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { command, nodeOnlyPath, run } from "./__fixtures__/registry/harness.ts";

const NODE = Bun.which("node");
const NPM = Bun.which("npm");
const SH = Bun.which("sh");
/** npm's own entry script on this machine, wherever its install keeps it (links resolved). */
const NPM_CLI = NPM ? realpathSync(NPM) : "";
const usable = !!NODE && !!SH && basename(NPM_CLI) === "npm-cli.js";

const work = mkdtempSync(join(tmpdir(), "agentd-npm-links-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `<work>/usr/bin/{node,npm,npx,sh}`, with npm and npx relative links into `<work>/usr/share/nodejs/npm`. */
function debianLikeBin(): string {
  const usr = join(work, "usr");
  mkdirSync(join(usr, "bin"), { recursive: true });
  mkdirSync(join(usr, "share", "nodejs"), { recursive: true });
  symlinkSync(dirname(dirname(NPM_CLI)), join(usr, "share", "nodejs", "npm"));
  symlinkSync("../share/nodejs/npm/bin/npm-cli.js", join(usr, "bin", "npm"));
  symlinkSync("../share/nodejs/npm/bin/npx-cli.js", join(usr, "bin", "npx"));
  symlinkSync(realpathSync(NODE!), join(usr, "bin", "node"));
  symlinkSync(realpathSync(SH!), join(usr, "bin", "sh"));
  return join(usr, "bin");
}

test.skipIf(!usable)(
  "npm reached through a link in a folder of links is found and runs",
  async () => {
    const expected = (await run([NPM!, "--version"], { cwd: work })).stdout.trim();
    expect(expected).toMatch(/^\d+\.\d+\.\d+/);
    const bin = debianLikeBin();
    // The layout a `<prefix>/bin/npm` would imply does not exist here.
    expect(existsSync(join(dirname(bin), "lib", "node_modules", "npm", "bin", "npm-cli.js"))).toBe(false);

    const npm = command("npm", bin);
    expect(npm).toBe(join(bin, "npm"));
    const r = await run([npm, "--version"], { cwd: work, env: { PATH: bin, HOME: work } });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    expect(r.stdout.trim()).toBe(expected);

    // The Node-only PATH the registry test installs with, built from that folder.
    const nodeOnly = nodeOnlyPath(work, bin);
    for (const tool of ["npm", "npx"]) {
      const t = await run([join(nodeOnly, tool), "--version"], { cwd: work, env: { PATH: nodeOnly, HOME: work } });
      expect({ tool, code: t.code, stderr: t.stderr, stdout: t.stdout.trim() }).toEqual({ tool, code: 0, stderr: "", stdout: expected });
    }
  },
  60_000,
);

test("a command missing from the PATH is named", () => {
  expect(() => command("npm", join(work, "nowhere"))).toThrow(/^npm is not on PATH/);
});
