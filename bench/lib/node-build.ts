/**
 * Building a TypeScript entry for Node 20 (which cannot run .ts): `bun build --target=node` into
 * `bench/.build/`, with npm packages left external so Node loads them from `bench/node_modules` exactly as a
 * user's program would; only workspace TypeScript is bundled (from source, via the `bun` condition).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { BENCH_DIR, BUN, runToEnd } from "./proc.ts";

/** The folder of built files (git-ignored). */
export const BUILD_DIR = join(BENCH_DIR, ".build");

/** Build `entry` (relative to the repo root) to `bench/.build/<name>.mjs`; returns the output path. */
export async function buildForNode(entry: string, name: string, externals: string[]): Promise<string> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const outfile = join(BUILD_DIR, `${name}.mjs`);
  // `--conditions=bun`: bundle the workspace packages from their TypeScript sources (their `import`
  // condition points at dist/ bundles that a fresh clone has not built).
  const r = await runToEnd(
    [
      BUN,
      "build",
      entry,
      "--target=node",
      "--format=esm",
      "--conditions=bun",
      `--outfile=${outfile}`,
      ...externals.map((e) => `--external=${e}`),
    ],
    {
      timeoutMs: 120_000,
    },
  );
  if (r.code !== 0) throw new Error(`bun build ${entry} for node failed: ${r.stderr.slice(-1500)}`);
  return outfile;
}
