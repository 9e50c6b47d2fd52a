import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryBackend } from "./directory-backend.ts";
import { runStoreCases } from "@agentd/test-support/store.case";

const dirs: string[] = [];
let current = "";
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

runStoreCases({
  async open() {
    current = mkdtempSync(join(tmpdir(), "agentd-store-"));
    dirs.push(current);
    return new DirectoryBackend(current);
  },
  async reopen() {
    return new DirectoryBackend(current);
  },
});

test("leftover temp files (a crash mid-write) are removed on open; documents are whole files", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  const a = new DirectoryBackend(dir);
  await a.put("k", { v: 1 });
  writeFileSync(join(dir, ".tmp-999-1"), '{"version":2,"va');
  const b = new DirectoryBackend(dir);
  expect(readdirSync(dir)).toEqual(["k.json"]);
  expect(await b.get("k")).toEqual({ key: "k", version: 1, value: { v: 1 } });
});

test("a corrupt document is reported, never read as absent", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  writeFileSync(join(dir, "bad.json"), "{not json");
  await expect(new DirectoryBackend(dir).get("bad")).rejects.toThrow(/not valid JSON/);
});
