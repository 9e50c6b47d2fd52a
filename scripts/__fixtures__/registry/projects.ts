/**
 * The fresh projects of the registry test: what they depend on, their `.npmrc` (only the `@agentd` scope
 * points at the private registry; everything else comes from the public one), the consumer scripts, and a
 * TypeScript file that imports every export path of every published library, derived from their manifests.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportEntries, readManifest } from "../../packaging/manifest.ts";

const CONSUMER = join(import.meta.dir, "consumer");
/** `@types/node` for the Node TypeScript projects, pinned like every dependency. */
const TYPES_NODE = "20.19.43";

/** `.npmrc` lines: the `@agentd` scope from the private registry, with the publisher's token. */
export function npmrc(registryUrl: string, token: string): string {
  const host = registryUrl.replace(/^https?:/, "");
  return `@agentd:registry=${registryUrl}\n${host}:_authToken=${token}\n`;
}

/** A fresh project in `dir` depending on every published package at `version`. */
export function writeProject(dir: string, rc: string, version: string, libraries: string[]): void {
  mkdirSync(dir, { recursive: true });
  const dependencies = Object.fromEntries([...libraries, "@agentd/cli"].map((n) => [n, version]));
  const manifest = { name: "fresh-app", private: true, type: "module", dependencies, devDependencies: { "@types/node": TYPES_NODE } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, ".npmrc"), rc);
  for (const f of ["one-shot.mjs", "serve-http.mjs", "otel-missing.mjs"]) copyFileSync(join(CONSUMER, f), join(dir, f));
  copyFileSync(join(CONSUMER, "testkit-bun.mjs"), join(dir, "testkit.test.mjs"));
  copyFileSync(join(CONSUMER, "testkit-node.mjs"), join(dir, "testkit.node-test.mjs"));
}

/** A fresh project in `dir` depending on `@agentd/sdk` alone (what an SDK user installs first). */
export function writeSdkOnlyProject(dir: string, rc: string, version: string): void {
  mkdirSync(dir, { recursive: true });
  const manifest = { name: "sdk-only-app", private: true, type: "module", dependencies: { "@agentd/sdk": version } };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, ".npmrc"), rc);
}

/**
 * `check.ts` and two tsconfigs: Node (`NodeNext`, strict, Node's types, nothing else) and bundler resolution. The file
 * imports every subpath of every library (`packageDirs` are the workspace folders) and uses the API with
 * real types: a `@ts-expect-error` fails the check if the declarations degrade to `any`.
 */
export function writeTypeCheck(dir: string, packageDirs: string[]): string[] {
  const imports: string[] = [];
  const names: string[] = [];
  for (const pkgDir of packageDirs) {
    const m = readManifest(pkgDir);
    for (const e of exportEntries(m)) {
      const spec = e.subpath === "." ? m.name : `${m.name}/${e.subpath.slice(2)}`;
      const ns = `ns${names.length}`;
      imports.push(`import * as ${ns} from "${spec}";`);
      names.push(ns);
    }
  }
  const source = [
    ...imports,
    'import { createAgent } from "@agentd/sdk";',
    'import { createModel } from "@agentd/adapters";',
    'import { startFakeGateway } from "@agentd/testkit";',
    "",
    `export const namespaces: object[] = [${names.join(", ")}];`,
    'const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "typed" }] });',
    'const agent = createAgent({ model: createModel({ dialect: "openai", baseURL: gateway.url, model: "m" }) });',
    'const text: string | undefined = (await agent.run("hi")).text;',
    "// @ts-expect-error: a model is not a number",
    "createAgent({ model: 42 });",
    "export { text };",
    "",
  ].join("\n");
  writeFileSync(join(dir, "check.ts"), source);
  // TypeScript 6 includes no `@types` package unless listed: a Node project names Node's.
  const base = { strict: true, noEmit: true, target: "ES2022", types: ["node"] };
  const node = { compilerOptions: { ...base, module: "NodeNext", moduleResolution: "NodeNext" }, files: ["check.ts"] };
  const bundler = { compilerOptions: { ...base, module: "ESNext", moduleResolution: "Bundler" }, files: ["check.ts"] };
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify(node, null, 2)}\n`);
  writeFileSync(join(dir, "tsconfig.bundler.json"), `${JSON.stringify(bundler, null, 2)}\n`);
  return names;
}
