/**
 * What every published package.json promises a stranger, checked from the manifests: one copy of the SDK
 * (libraries on top of it name it as a peer with a range the workspace's version satisfies, never as a
 * dependency), third-party dependencies ranged the way libraries range them (`^x.y.z`, the lockfile keeps the
 * exact version that is tested), the licence text shipped, and where the source, home page and issues are.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { readManifest, type Manifest } from "./manifest.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** The libraries scripts/build-packages.ts builds and `bun pm pack` publishes (the CLI is published by scripts/build-cli.ts). */
const LIBRARIES = ["sdk", "otel", "adapters", "testkit"];
const PUBLISHED = [...LIBRARIES, "cli"];
const manifest = (name: string): Manifest & Record<string, any> => readManifest(join(ROOT, "packages", name));
const workspaceVersion = (pkg: string) => manifest(pkg.replace("@agentd/", "")).version;

test("every package that is not private is one of the libraries", () => {
  const open = readdirSync(join(ROOT, "packages")).filter(
    (d) => existsSync(join(ROOT, "packages", d, "package.json")) && !manifest(d).private,
  );
  expect(open.sort()).toEqual([...LIBRARIES].sort());
});

describe.each(LIBRARIES)("@agentd/%s", (name) => {
  const m = manifest(name);

  test("names other @agentd packages as peers with a range the workspace version satisfies, developed against the workspace", () => {
    expect(Object.keys(m.dependencies ?? {}).filter((d) => d.startsWith("@agentd/"))).toEqual([]);
    for (const [peer, range] of Object.entries(m.peerDependencies ?? {})) {
      if (!peer.startsWith("@agentd/")) continue;
      expect({ peer, range }).toEqual({ peer, range: expect.stringMatching(/^\^\d+\.\d+\.\d+$/) });
      expect(Bun.semver.satisfies(workspaceVersion(peer), range)).toBe(true);
      expect(m.devDependencies?.[peer]).toBe("workspace:*");
    }
  });

  test("ranges third-party runtime dependencies with ^, and the installed (locked) version is in range", () => {
    for (const [dep, range] of Object.entries(m.dependencies ?? {})) {
      expect({ dep, range }).toEqual({ dep, range: expect.stringMatching(/^\^\d+\.\d+\.\d+$/) });
      const installed = JSON.parse(readFileSync(join(ROOT, "packages", name, "node_modules", dep, "package.json"), "utf8")) as {
        version: string;
      };
      expect({ dep, ok: Bun.semver.satisfies(installed.version, range) }).toEqual({ dep, ok: true });
    }
  });
});

describe.each(PUBLISHED)("@agentd/%s ships", (name) => {
  const m = manifest(name);

  test("the Apache-2.0 licence text, listed in files", () => {
    expect(m.license).toBe("Apache-2.0");
    expect(readFileSync(join(ROOT, "packages", name, "LICENSE"), "utf8")).toBe(readFileSync(join(ROOT, "LICENSE"), "utf8"));
    if (LIBRARIES.includes(name)) expect(m.files).toContain("LICENSE");
  });

  test("repository, homepage and bugs", () => {
    expect(m.repository).toEqual({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/),
      directory: `packages/${name}`,
    });
    expect(m.homepage).toStartWith("https://github.com/");
    expect(m.bugs?.url).toMatch(/^https:\/\/github\.com\/.+\/issues$/);
  });
});

test("the root LICENSE is the Apache License 2.0 that package.json names", () => {
  const text = readFileSync(join(ROOT, "LICENSE"), "utf8");
  expect(text).toContain("Apache License");
  expect(text).toContain("Version 2.0, January 2004");
});
