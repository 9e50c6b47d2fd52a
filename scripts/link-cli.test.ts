/**
 * scripts/link-cli.sh, the route to an `agentd` on PATH from a clone before @agentd/cli is published: the
 * command it writes runs as a real process from outside the repository, the fallback folder is said to be off
 * PATH when it is, and an `agentd` the script did not write is never replaced.
 */
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const SCRIPT = join(ROOT, "scripts", "link-cli.sh");
const VERSION = (JSON.parse(readFileSync(join(ROOT, "packages", "cli", "package.json"), "utf8")) as { version: string }).version;
const temps: string[] = [];

afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentd-link-"));
  temps.push(dir);
  return dir;
}

async function run(cmd: string[], env: Record<string, string | undefined>, cwd = ROOT) {
  const proc = Bun.spawn(cmd, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("the linked agentd runs the clone's CLI from anywhere: `agentd --version` on PATH", async () => {
  const bin = temp();
  const elsewhere = temp();
  const env = { ...process.env, AGENTD_LINK_DIR: bin };
  const link = await run(["bash", SCRIPT], env);
  expect(link.code).toBe(0);
  expect(link.stdout).toContain(`${bin}/agentd runs the sources of ${ROOT}`);

  const path = `${bin}:${process.env.PATH ?? ""}`;
  const version = await run(["agentd", "--version"], { ...process.env, PATH: path }, elsewhere);
  expect(version.stderr).toBe("");
  expect(version.code).toBe(0);
  expect(version.stdout).toStartWith(`agentd ${VERSION} `);

  // Run again: the script replaces its own wrapper; --remove takes it away.
  expect((await run(["bash", SCRIPT], env)).code).toBe(0);
  expect((await run(["bash", SCRIPT, "--remove"], env)).code).toBe(0);
  expect(existsSync(join(bin, "agentd"))).toBe(false);
});

test("without a writable npm prefix it falls back to ~/.local/bin and says when that is not on PATH", async () => {
  const home = temp();
  // npm reads its prefix from npm_config_prefix too, which `npm test` sets for its children: both point nowhere.
  const nowhere = join(home, "no-such-prefix");
  const env = { ...process.env, AGENTD_LINK_DIR: undefined, HOME: home, NPM_CONFIG_PREFIX: nowhere, npm_config_prefix: nowhere };
  const link = await run(["bash", SCRIPT], env);
  expect(link.code).toBe(0);
  expect(existsSync(join(home, ".local", "bin", "agentd"))).toBe(true);
  expect(link.stderr).toContain(`agentd: ${home}/.local/bin is not on your PATH; add it`);
});

test("an agentd the script did not write is left alone, in one line", async () => {
  const bin = temp();
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "agentd"), "#!/bin/sh\necho someone else's agentd\n");
  const link = await run(["bash", SCRIPT], { ...process.env, AGENTD_LINK_DIR: bin });
  expect(link.code).toBe(1);
  expect(link.stderr).toBe(
    `agentd: ${bin}/agentd exists and was not written by this script; remove it, or set AGENTD_LINK_DIR to another folder\n`,
  );
  expect(readFileSync(join(bin, "agentd"), "utf8")).toContain("someone else's agentd");
});
