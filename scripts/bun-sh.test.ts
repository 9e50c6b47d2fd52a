/**
 * scripts/bun.sh installs the workspace's dependencies only when they may be stale: a stamp file written
 * after a successful install, compared with bun.lock and every package.json. Run against a copy of the
 * script in a scratch repository, with a stand-in `bun` on PATH that records what it was asked to do.
 */
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = join(import.meta.dir, "bun.sh");
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A scratch repository with the script, a lock file, two package.json files and a fake bun. */
function scratch() {
  const root = mkdtempSync(join(tmpdir(), "agentd-bunsh-"));
  dirs.push(root);
  mkdirSync(join(root, "scripts"));
  copyFileSync(SCRIPT, join(root, "scripts", "bun.sh"));
  mkdirSync(join(root, "packages", "a"), { recursive: true });
  writeFileSync(join(root, "bun.lock"), "{}\n");
  writeFileSync(join(root, "package.json"), "{}\n");
  writeFileSync(join(root, "packages", "a", "package.json"), "{}\n");
  const bin = join(root, "bin");
  mkdirSync(bin);
  const log = join(root, "bun-calls.log");
  // The fake bun: right version, logs each call, and `install` fails when FAIL_INSTALL is set.
  writeFileSync(
    join(bin, "bun"),
    `#!/usr/bin/env bash
if [ "$1" = "--version" ]; then echo 1.4.4; exit 0; fi
echo "$*" >> "${log}"
if [ "$1" = "install" ]; then mkdir -p node_modules; [ -z "\${FAIL_INSTALL:-}" ] || exit 7; fi
exit 0
`,
  );
  chmodSync(join(bin, "bun"), 0o755);
  const run = (env: Record<string, string> = {}) => {
    const r = Bun.spawnSync(["bash", join(root, "scripts", "bun.sh"), "run", "x"], {
      cwd: root,
      env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    return r.exitCode;
  };
  const installs = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .filter((l) => l.startsWith("install")).length
      : 0;
  const setAge = (path: string, ageMs: number) => {
    const at = new Date(Date.now() - ageMs);
    utimesSync(path, at, at);
  };
  // Inputs start well in the past; a change makes one newer than the stamp (set explicitly, so the
  // file system's timestamp resolution cannot blur the order).
  for (const f of ["bun.lock", "package.json", join("packages", "a", "package.json")]) setAge(join(root, f), 600_000);
  const change = (path: string) => {
    setAge(join(root, "node_modules", ".agentd-install-stamp"), 60_000);
    setAge(path, 30_000);
  };
  return { root, run, installs, change };
}

test("installs once, then only when bun.lock or a package.json changes or the stamp is gone", () => {
  const s = scratch();
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(1);
  expect(existsSync(join(s.root, "node_modules", ".agentd-install-stamp"))).toBe(true);
  // No change: no install, however often it runs (a no-change install does not touch node_modules).
  expect(s.run()).toBe(0);
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(1);
  s.change(join(s.root, "bun.lock"));
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(2);
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(2);
  s.change(join(s.root, "packages", "a", "package.json"));
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(3);
  rmSync(join(s.root, "node_modules", ".agentd-install-stamp"));
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(4);
});

test("a failed install leaves no stamp, so the next run tries again", () => {
  const s = scratch();
  expect(s.run({ FAIL_INSTALL: "1" })).toBe(7);
  expect(existsSync(join(s.root, "node_modules", ".agentd-install-stamp"))).toBe(false);
  expect(s.run()).toBe(0);
  expect(s.installs()).toBe(2);
});
