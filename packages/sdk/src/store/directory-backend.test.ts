import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE } from "./_directory-lock.ts";
import { DirectoryBackend } from "./directory-backend.ts";
import { runStoreCases } from "./__fixtures__/store.case.ts";

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
});

test("leftover temp files (a crash mid-write) are removed on open; documents are whole files", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  const a = new DirectoryBackend(dir);
  await a.put("k", { v: 1 });
  await a.close();
  writeFileSync(join(dir, ".tmp-999-1"), '{"version":2,"va');
  const b = new DirectoryBackend(dir);
  expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, "k.json"]);
  expect(await b.get("k")).toEqual({ key: "k", version: 1, value: { v: 1 } });
});

test("a corrupt document is reported, never read as absent", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  writeFileSync(join(dir, "bad.json"), "{not json");
  await expect(new DirectoryBackend(dir).get("bad")).rejects.toThrow(/not valid JSON/);
});

test("one writer a directory: a second backend is refused while the first is open, and opens once it is closed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  const a = new DirectoryBackend(dir);
  await a.put("k", 1);
  // A temp file of a write in flight must survive the refused open (it is the holder's).
  writeFileSync(join(dir, ".tmp-in-flight"), "{");
  let refused: unknown;
  try {
    new DirectoryBackend(dir);
  } catch (e) {
    refused = e;
  }
  expect(refused).toMatchObject({ code: "E_STORE_LOCKED" });
  expect((refused as Error).message).toContain(`is in use by another store (pid ${process.pid} on `);
  expect(readdirSync(dir)).toContain(".tmp-in-flight");
  await a.close();
  const b = new DirectoryBackend(dir);
  expect(await b.get("k")).toMatchObject({ version: 1, value: 1 });
  await b.close();
});
