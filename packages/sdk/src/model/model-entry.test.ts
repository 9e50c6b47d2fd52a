/**
 * `@agentd/sdk/model` loads none of the agent: following every static import from its entry reaches no
 * file of the agent, supervisor, servers, transports, MCP, triggers or config layers, and no runtime API.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "..");
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g;

function graph(entry: string): { files: string[]; bare: string[] } {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, spec] of readFileSync(file, "utf8").matchAll(IMPORT)) {
      if (spec!.startsWith(".")) visit(resolve(dirname(file), spec!));
      else bare.add(spec!);
    }
  };
  visit(entry);
  return { files: [...seen].map((f) => relative(SRC, f)).sort(), bare: [...bare].sort() };
}

test("the model entry reaches only the model interface, errors and small helpers", () => {
  const { files, bare } = graph(resolve(SRC, "model/index.ts"));
  expect(files.filter((f) => /^(agent|supervisor|serve|transport|mcp|triggers|config)\//.test(f))).toEqual([]);
  expect(bare).toEqual([]);
  expect(files).toContain("model/language-model.ts");
});
