/**
 * An example works when copied out of the repository: it reaches agentd's packages by their names (declared
 * in its own package.json), never by a relative path into packages/ — an import, or a path it resolves.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Glob } from "bun";

const EXAMPLES = resolve(import.meta.dir, "../examples");
const examples = readdirSync(EXAMPLES).filter((d) => statSync(join(EXAMPLES, d)).isDirectory());

test.each(examples)("examples/%s reaches the packages by name and declares each one it uses", (example) => {
  const dir = join(EXAMPLES, example);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
  const offending: string[] = [];
  for (const file of new Glob("**/*.{ts,js,mjs}").scanSync({ cwd: dir })) {
    if (file.includes("node_modules")) continue;
    const text = readFileSync(join(dir, file), "utf8");
    if (/["'`](?:\.\.\/)+packages\//.test(text)) offending.push(`${file}: a relative path into packages/`);
    for (const m of text.matchAll(/(?:from\s+|import\(\s*|import\.meta\.resolve\(\s*)["'](@agentd\/[a-z-]+)/g))
      if (!declared.has(m[1]!)) offending.push(`${file}: ${m[1]} is not in package.json`);
  }
  expect(offending).toEqual([]);
});
