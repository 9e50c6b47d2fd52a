/**
 * Every relative link in the project's Markdown reaches a file that exists, and every `#anchor` names a heading
 * of its target (GitHub's slugs). The README is a front page that links into docs/, and docs/ pages link to each
 * other's sections: a section moved or renamed must not leave a link pointing nowhere. Also keeps the README's
 * lines short enough to read in a terminal or an editor's preview without wrapping.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");

/** The Markdown files a reader of the repository opens (generated docs/api is not committed). */
function markdownFiles(): string[] {
  const files = ["README.md", "bench/README.md"];
  for (const f of readdirSync(join(ROOT, "docs"))) if (f.endsWith(".md")) files.push(`docs/${f}`);
  for (const dir of ["packages", "examples"]) {
    for (const d of readdirSync(join(ROOT, dir))) if (existsSync(join(ROOT, dir, d, "README.md"))) files.push(`${dir}/${d}/README.md`);
  }
  return files;
}

/** Text outside fenced code blocks, where a `[x](y)` is a link and a `#` line is a heading. */
function prose(text: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line);
  }
  return lines;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(readFileSync(file, "utf8"))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m?.[1]) continue;
    const text = m[1].replace(/!\[[^\]]*\]\([^)]*\)/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

test("every relative link and #anchor in the Markdown resolves", () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const abs = join(ROOT, file);
    for (const line of prose(readFileSync(abs, "utf8"))) {
      const inline = line.replace(/`[^`]*`/g, "");
      for (const m of inline.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const href = m[1] ?? "";
        if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:, …
        const [path = "", anchor] = href.split("#");
        const target = path === "" ? abs : resolve(dirname(abs), decodeURIComponent(path));
        if (!existsSync(target)) {
          broken.push(`${file}: ${href} (no such file)`);
          continue;
        }
        if (anchor === undefined || !target.endsWith(".md") || statSync(target).isDirectory()) continue;
        if (!anchorsOf(target).has(anchor)) broken.push(`${file}: ${href} (no heading #${anchor} in ${relative(ROOT, target)})`);
      }
    }
  }
  expect(broken).toEqual([]);
});

test("the README's lines fit 120 columns", () => {
  const long = readFileSync(join(ROOT, "README.md"), "utf8")
    .split("\n")
    .map((line, i) => ({ n: i + 1, length: [...line].length }))
    .filter((l) => l.length > 120);
  expect(long).toEqual([]);
});
