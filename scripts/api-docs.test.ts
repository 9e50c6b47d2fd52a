/**
 * Every public export carries a doc comment: each entry point of each published library (read from the
 * package.json `exports`, so a new subpath is covered without touching this file) is opened with the
 * TypeScript compiler, and every name it exports, followed through re-exports to its declaration, must
 * have a JSDoc comment there. The API reference (`bun run docs:api`, TypeDoc) is generated from the
 * same comments.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Glob } from "bun";
import ts from "typescript";
import { exportEntries, readManifest } from "./packaging/manifest.ts";

const ROOT = resolve(import.meta.dir, "..");
const LIBRARIES = ["sdk", "otel", "adapters", "testkit"];

/** Entry files, by the name a user imports them with. */
function entries(): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of LIBRARIES) {
    const dir = join(ROOT, "packages", p);
    const m = readManifest(dir);
    for (const e of exportEntries(m)) out.set(e.subpath === "." ? m.name : `${m.name}/${e.subpath.slice(2)}`, join(dir, e.source));
  }
  return out;
}

/** `name (file)` for each export of `files` whose declarations carry no doc comment. */
export function undocumentedExports(files: Map<string, string>): string[] {
  const program = ts.createProgram([...files.values()], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ["bun"],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["bun"],
  });
  const checker = program.getTypeChecker();
  const missing: string[] = [];
  for (const [spec, file] of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`${spec}: ${file} is not a module`);
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = symbol.declarations ?? [];
      const documented = declarations.some(
        (d) =>
          ts.getJSDocCommentsAndTags(d).length > 0 ||
          (ts.isVariableDeclaration(d) && ts.getJSDocCommentsAndTags(d.parent.parent).length > 0),
      );
      if (!documented)
        missing.push(`${spec}: ${exported.name} (${declarations[0]?.getSourceFile().fileName.slice(ROOT.length + 1) ?? "no declaration"})`);
    }
  }
  return [...new Set(missing)].sort();
}

test("every export of every published entry point has a doc comment", () => {
  expect(undocumentedExports(entries())).toEqual([]);
}, 300_000);

test("every {@includeCode file#region} in the libraries' sources names a file and a region in it", () => {
  const broken: string[] = [];
  let seen = 0;
  for (const p of LIBRARIES) {
    const src = join(ROOT, "packages", p, "src");
    for (const file of new Glob("**/*.ts").scanSync(src)) {
      const text = readFileSync(join(src, file), "utf8");
      for (const m of text.matchAll(/\{@includeCode\s+([^#}\s]+)(?:#([\w-]+))?\}/g)) {
        seen++;
        const target = resolve(dirname(join(src, file)), m[1]!);
        const body = existsSync(target) ? readFileSync(target, "utf8") : undefined;
        if (body === undefined) broken.push(`${p}/src/${file}: ${m[1]} does not exist`);
        else if (m[2] && !(body.includes(`// #region ${m[2]}\n`) && body.includes(`// #endregion ${m[2]}\n`)))
          broken.push(`${p}/src/${file}: no region ${m[2]} in ${m[1]}`);
      }
    }
  }
  expect(broken).toEqual([]);
  expect(seen).toBeGreaterThanOrEqual(7);
});
