/**
 * The structure figures issue reviews quote, measured the same way each time: production functions over 80
 * and 120 lines (every function, method, constructor, accessor and arrow function in packages/{name}/src but
 * the private test-support package;
 * tests, fixtures and generated files left out), hand-written files over 450 lines, files and lines per folder
 * of packages/sdk/src/agent, forward references in `createAgent` (a closure naming a local declared after it)
 * and the number of names the SDK's root entry exports.
 *
 * usage: bun scripts/measure-structure.ts [--json]
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "..");
const SDK = join(ROOT, "packages/sdk/src");

/** Production source files of every package (no tests, fixtures or generated files). */
function productionFiles(): string[] {
  return (
    [...new Glob("packages/*/src/**/*.{ts,tsx}").scanSync(ROOT)]
      // The private test-support package is test code, not shipped.
      .filter((f) => !f.startsWith("packages/test-support/"))
      .filter((f) => !/\.test\.tsx?$|\.case\.ts$|\.examples\.ts$|\.generated\.ts$|__fixtures__|node_modules|\.d\.ts$/.test(f))
      .sort()
  );
}

const parse = (file: string) => ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
const lineOf = (sf: ts.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;

/** A function's name as a reader finds it: its own, its variable's, its property's or its class member's. */
function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) {
    const owner =
      ts.isClassElement(node) && node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : "";
    return owner + named.name.text;
  }
  if (ts.isConstructorDeclaration(node)) return `${(node.parent as ts.ClassLikeDeclaration).name?.text ?? "class"}.constructor`;
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && ts.isIdentifier(p.name))
    return p.name.text;
  return "(anonymous)";
}

interface FunctionLength {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function functionLengths(files: string[]): FunctionLength[] {
  const out: FunctionLength[] = [];
  for (const file of files) {
    const sf = parse(file);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && (node as { body?: ts.Node }).body) {
        const start = lineOf(sf, node.getStart(sf));
        out.push({ file, name: nameOf(node), line: start, lines: lineOf(sf, node.getEnd()) - start + 1 });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out.sort((a, b) => b.lines - a.lines);
}

/** Files and lines per folder of packages/sdk/src/agent (production files; its top as "."). */
function agentFolders(files: string[]): Record<string, { files: number; lines: number }> {
  const out: Record<string, { files: number; lines: number }> = {};
  for (const file of files.filter((f) => f.startsWith("packages/sdk/src/agent/"))) {
    const folder = relative(join(SDK, "agent"), dirname(join(ROOT, file))) || ".";
    const lines = readFileSync(join(ROOT, file), "utf8").split("\n").length - 1;
    const f = (out[folder] ??= { files: 0, lines: 0 });
    f.files++;
    f.lines += lines;
  }
  return out;
}

/** Closures in `createAgent` that name a local declared later in its body (reaching forward at run time). */
function forwardReferences(): string[] {
  const file = "packages/sdk/src/agent/create-agent.ts";
  const sf = parse(file);
  let body: ts.Block | undefined;
  sf.forEachChild((n) => {
    if (ts.isFunctionDeclaration(n) && n.name?.text === "createAgent") body = n.body;
  });
  if (!body) return ["createAgent not found"];
  const declaredAt = new Map<string, number>();
  for (const st of body.statements)
    if (ts.isVariableStatement(st))
      for (const d of st.declarationList.declarations) {
        const names: string[] = [];
        const collect = (b: ts.BindingName) => {
          if (ts.isIdentifier(b)) names.push(b.text);
          else for (const e of b.elements) if (!ts.isOmittedExpression(e)) collect(e.name);
        };
        collect(d.name);
        for (const n of names) declaredAt.set(n, st.getStart(sf));
      }
  const found: string[] = [];
  const visit = (node: ts.Node, inClosure: boolean) => {
    const closure = inClosure || (ts.isFunctionLike(node) && node !== body?.parent);
    if (closure && ts.isIdentifier(node)) {
      const at = declaredAt.get(node.text);
      const p = node.parent;
      const isName = p && (ts.isPropertyAccessExpression(p) ? p.name === node : (p as { name?: ts.Node }).name === node);
      if (at !== undefined && at > node.getStart(sf) && !isName) found.push(`${node.text} (line ${lineOf(sf, node.getStart(sf))})`);
    }
    ts.forEachChild(node, (c) => visit(c, closure));
  };
  ts.forEachChild(body, (c) => visit(c, false));
  return found;
}

/** Names the root entry exports (values and types), as a TypeScript user sees them. */
function rootExports(): { names: number; values: number } {
  const entry = join(SDK, "index.ts");
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["bun"],
  });
  const checker = program.getTypeChecker();
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry) as ts.SourceFile);
  const exports = symbol ? checker.getExportsOfModule(symbol) : [];
  const values = exports.filter((e) => {
    const s = e.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(e) : e;
    return (s.flags & ts.SymbolFlags.Value) !== 0;
  });
  return { names: exports.length, values: values.length };
}

const files = productionFiles();
const fns = functionLengths(files);
const longFiles = files
  .map((f) => ({ file: f, lines: readFileSync(join(ROOT, f), "utf8").split("\n").length - 1 }))
  .filter((f) => f.lines > 450);
const report = {
  functionsOver80: fns.filter((f) => f.lines > 80),
  functionsOver120: fns.filter((f) => f.lines > 120),
  filesOver450: longFiles,
  agentFolders: agentFolders(files),
  createAgentForwardReferences: forwardReferences(),
  rootExports: rootExports(),
};

if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`functions over 80 lines: ${report.functionsOver80.length} (over 120: ${report.functionsOver120.length})`);
  for (const f of report.functionsOver80) console.log(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
  console.log(`hand-written files over 450 lines: ${longFiles.length}`);
  for (const f of longFiles) console.log(`  ${String(f.lines).padStart(4)}  ${f.file}`);
  console.log("packages/sdk/src/agent, per folder (files, lines):");
  for (const [folder, f] of Object.entries(report.agentFolders).sort())
    console.log(`  ${folder.padEnd(16)} ${String(f.files).padStart(3)} ${String(f.lines).padStart(6)}`);
  console.log(`forward references in createAgent: ${report.createAgentForwardReferences.length}`);
  for (const r of report.createAgentForwardReferences) console.log(`  ${r}`);
  console.log(`root entry: ${report.rootExports.names} names, ${report.rootExports.values} of them values`);
}
