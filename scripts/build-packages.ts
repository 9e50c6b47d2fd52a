/**
 * Build the publishable library packages for Node and for type checkers: per package, every `exports`
 * subpath becomes `dist/<path>.js` (ESM, one shared chunk set, dependencies left as imports) and
 * `dist/<path>.d.ts` (tsc declarations, relative `.ts` imports rewritten to `.js`); every `bin` becomes a
 * standalone Node script. Bun keeps running the TypeScript sources through the `bun` export condition.
 * Each package's `prepack` runs this for itself, so `bun pm pack` / `bun publish` always ship a fresh build.
 *
 * Usage: bun scripts/build-packages.ts [--js-only] [sdk|otel|adapters|testkit …]   (default: all four, in order)
 *   --js-only   skip the declarations (what running under Node needs; much faster)
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { binEntries, exportEntries, externals, readManifest, type Manifest } from "./packaging/manifest.ts";

const root = resolve(import.meta.dir, "..");
/** Build order: a package's workspace dependencies come before it (their declarations are read). */
const LIBRARIES = ["sdk", "otel", "adapters", "testkit"];

async function bundle(dir: string, m: Manifest): Promise<void> {
  const entries = exportEntries(m);
  const result = await Bun.build({
    entrypoints: entries.map((e) => join(dir, e.source)),
    root: join(dir, "src"),
    outdir: join(dir, "dist"),
    target: "node",
    format: "esm",
    // One copy of each module however many subpaths reach it: `instanceof` holds across subpaths.
    splitting: true,
    naming: { entry: "[dir]/[name].[ext]", chunk: "_chunks/[name]-[hash].[ext]" },
    external: externals(m),
    sourcemap: "linked",
  });
  if (!result.success) throw new AggregateError(result.logs, `${m.name}: bundling failed`);
  for (const bin of binEntries(m)) {
    const out = await Bun.build({ entrypoints: [join(dir, bin.source)], target: "node", format: "esm", external: externals(m) });
    if (!out.success) throw new AggregateError(out.logs, `${m.name}: bundling bin ${bin.name} failed`);
    // Sources start with `#!/usr/bin/env bun`; the built script runs under Node.
    const code = (await out.outputs[0]!.text()).replace(/^#!.*\n/, "");
    mkdirSync(dirname(join(dir, bin.script)), { recursive: true });
    writeFileSync(join(dir, bin.script), `#!/usr/bin/env node\n${code}`);
    chmodSync(join(dir, bin.script), 0o755);
  }
}

/** Declarations for every entry and what it reaches; workspace dependencies resolve to their built `.d.ts`. */
async function declare(dir: string, m: Manifest): Promise<void> {
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const flags = [
    "--ignoreConfig",
    "--declaration",
    "--emitDeclarationOnly",
    "--outDir",
    join(dir, "dist"),
    "--rootDir",
    join(dir, "src"),
    "--target",
    "ES2022",
    "--module",
    "ESNext",
    "--moduleResolution",
    "Bundler",
    "--lib",
    "ES2023,DOM,DOM.Iterable",
    "--types",
    "bun",
    "--strict",
    "--noUncheckedIndexedAccess",
    "--allowImportingTsExtensions",
    "--verbatimModuleSyntax",
    "--isolatedModules",
    "--resolveJsonModule",
    "--skipLibCheck",
  ];
  const sources = exportEntries(m).map((e) => join(dir, e.source));
  const proc = Bun.spawn([process.execPath, tsc, ...flags, ...sources], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${m.name}: tsc declarations failed\n${out}`);
  // tsc keeps `./x.ts` specifiers in declarations (`rewriteRelativeImportExtensions` rewrites only emitted
  // JavaScript); consumers without `allowImportingTsExtensions` want `.js`.
  for (const file of new Bun.Glob("**/*.d.ts").scanSync(join(dir, "dist"))) {
    const path = join(dir, "dist", file);
    const text = readFileSync(path, "utf8");
    const fixed = text.replace(/((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\.ts\2/g, "$1$2$3.js$2");
    if (fixed !== text) writeFileSync(path, fixed);
  }
}

/** Every path the manifest promises exists after the build (declarations unless `--js-only`). */
function verify(dir: string, m: Manifest, withTypes: boolean): void {
  const promised = [
    ...exportEntries(m).flatMap((e) => (withTypes ? [e.module, e.types] : [e.module])),
    ...binEntries(m).map((b) => b.script),
  ];
  const missing = promised.filter((p) => !existsSync(join(dir, p)));
  if (missing.length > 0) throw new Error(`${m.name}: build did not produce ${missing.join(", ")}`);
}

// `npm pack` / `npm publish` keep `workspace:*` dependencies as written, and npm cannot install the result.
if (process.env.npm_lifecycle_event === "prepack" && process.env.npm_config_user_agent?.startsWith("npm/")) {
  console.error("build-packages: pack with `bun pm pack` or publish with `bun publish`: npm leaves workspace:* dependencies unresolved");
  process.exit(1);
}

const args = process.argv.slice(2);
const jsOnly = args.includes("--js-only");
const wanted = args.filter((a) => a !== "--js-only");
for (const name of wanted.length > 0 ? wanted : LIBRARIES) {
  if (!LIBRARIES.includes(name)) {
    console.error(`build-packages: unknown package "${name}" (one of: ${LIBRARIES.join(", ")})`);
    process.exit(2);
  }
  const dir = join(root, "packages", name);
  const m = readManifest(dir);
  rmSync(join(dir, "dist"), { recursive: true, force: true });
  try {
    await bundle(dir, m);
    if (!jsOnly) await declare(dir, m);
    verify(dir, m, !jsOnly);
  } catch (e) {
    console.error(
      e instanceof AggregateError ? [e.message, ...e.errors.map(String)].join("\n") : String(e instanceof Error ? e.message : e),
    );
    process.exit(1);
  }
  console.error(`built ${m.name} → packages/${name}/dist (${exportEntries(m).length} entry points)`);
}
