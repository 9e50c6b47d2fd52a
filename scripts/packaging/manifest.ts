/**
 * What a package publishes, read from its own package.json: each `exports` subpath names its TypeScript
 * source (`bun` condition), its built module (`import`) and its declarations (`types`); each `bin` names a
 * built script whose source sits at the same path under `src/`. The build scripts derive everything from
 * these fields, so a new subpath added to `exports` is built, declared and checked without touching them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One `exports` subpath. Paths are relative to the package folder, without `./`. */
export interface ExportEntry {
  /** The subpath as written in `exports` (`"."`, `"./mcp"`). */
  subpath: string;
  source: string;
  module: string;
  types: string;
}

/** One `bin` entry: the built script and the source it is built from. */
export interface BinEntry {
  name: string;
  script: string;
  source: string;
}

/** The fields of package.json the build reads. */
export interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  bin?: Record<string, string>;
  [field: string]: unknown;
}

/** Read `dir/package.json`. */
export function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
}

const rel = (p: string) => p.replace(/^\.\//, "");

/** The exports subpaths with all three conditions; a subpath without them (e.g. `./package.json`) is skipped. */
export function exportEntries(m: Manifest): ExportEntry[] {
  const out: ExportEntry[] = [];
  for (const [subpath, target] of Object.entries(m.exports ?? {})) {
    if (typeof target === "string") continue;
    const { bun, import: module, types } = target;
    if (!bun || !module || !types) throw new Error(`${m.name}: exports["${subpath}"] needs bun, types and import conditions`);
    out.push({ subpath, source: rel(bun), module: rel(module), types: rel(types) });
  }
  return out;
}

/** The bins, each built from `src/<path under dist/>` with `.ts` for `.js` (`dist/bin/x.js` ← `src/bin/x.ts`). */
export function binEntries(m: Manifest): BinEntry[] {
  return Object.entries(m.bin ?? {}).map(([name, script]) => {
    const s = rel(script);
    if (!s.startsWith("dist/") || !s.endsWith(".js")) throw new Error(`${m.name}: bin "${name}" must point into dist/ (${script})`);
    return { name, script: s, source: `src/${s.slice("dist/".length, -".js".length)}.ts` };
  });
}

/** Package names the bundle leaves as imports: runtime and peer dependencies, and their subpaths. */
export function externals(m: Manifest): string[] {
  const names = Object.keys({ ...m.dependencies, ...m.peerDependencies });
  return names.flatMap((n) => [n, `${n}/*`]);
}
