import { afterEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCK_FILE } from "./_directory-lock.ts";
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

/** A valid 200-character key whose URL-encoded file name would be 598 characters. */
const LONG_KEY = `a${":/".repeat(99)}z`;

test("a 200-character key of ':' and '/' is stored under a bounded file name, with the key inside, and listed back", async () => {
  expect(LONG_KEY).toHaveLength(200);
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  const a = new DirectoryBackend(dir);
  expect(await a.put(LONG_KEY, { n: 1 })).toBe(1);
  expect(await a.compareAndSet(LONG_KEY, 1, { n: 2 })).toEqual({ ok: true, version: 2 });
  await a.put("a:short", 1);
  expect(await a.list("a:")).toEqual(
    [
      { key: "a:short", version: 1 },
      { key: LONG_KEY, version: 2 },
    ].sort((x, y) => (x.key < y.key ? -1 : 1)),
  );
  expect(await a.list("b")).toEqual([]);
  const names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  expect(names.every((n) => Buffer.byteLength(n) <= 255)).toBe(true);
  const hashed = names.find((n) => n.startsWith("~")) as string;
  expect(JSON.parse(readFileSync(join(dir, hashed), "utf8"))).toEqual({ version: 2, value: { n: 2 }, key: LONG_KEY });
  await a.close();
  // Another store on the same directory later finds it, and deletes it.
  const b = new DirectoryBackend(dir);
  expect(await b.get(LONG_KEY)).toEqual({ key: LONG_KEY, version: 2, value: { n: 2 } });
  expect(await b.delete(LONG_KEY, 2)).toBe(true);
  expect(await b.get(LONG_KEY)).toBeUndefined();
  await b.close();
});

test("documents written before long keys were mapped keep their file names and are read as before", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  // As the earlier backend wrote them: the URL-encoded key, `{version, value}`; one name near the limit.
  const near = `b${"/".repeat(83)}`; // 250 characters encoded, 255 with the suffix
  for (const [key, value] of [
    ["jobs/1", "old"],
    [near, "near"],
  ] as const)
    writeFileSync(join(dir, `${encodeURIComponent(key)}.json`), JSON.stringify({ version: 3, value }));
  const a = new DirectoryBackend(dir);
  expect(await a.get("jobs/1")).toEqual({ key: "jobs/1", version: 3, value: "old" });
  expect(await a.get(near)).toEqual({ key: near, version: 3, value: "near" });
  expect(await a.list("")).toEqual([
    { key: near, version: 3 },
    { key: "jobs/1", version: 3 },
  ]);
  expect(await a.put("jobs/1", "new")).toBe(4);
  expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, `${encodeURIComponent(near)}.json`, "jobs%2F1.json"].sort());
  await a.close();
});

test("file-system failures reach a client naming the key and the error, never the store's path", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentd-store-"));
  dirs.push(dir);
  const a = new DirectoryBackend(dir);
  // A directory where the document's file should be: reading and writing it fail (EISDIR), even as root.
  mkdirSync(join(dir, "k.json"));
  mkdirSync(join(dir, `~${createHash("sha256").update(LONG_KEY).digest("hex")}.json`));
  writeFileSync(join(dir, "bad.json"), "{not json");
  const failures = await Promise.all(
    [a.get("k"), a.put("k", 1), a.compareAndSet("k", 0, 1), a.put(LONG_KEY, 1), a.get(LONG_KEY), a.get("bad"), a.list("")].map((p) =>
      p.then(
        () => "no error",
        (e: Error) => e.message,
      ),
    ),
  );
  expect(failures.slice(0, 3)).toEqual([
    `the store could not read "k": EISDIR (is a directory) in its directory`,
    `the store could not write "k": EISDIR (is a directory) in its directory`,
    `the store could not write "k": EISDIR (is a directory) in its directory`,
  ]);
  for (const message of failures) {
    expect(message).not.toBe("no error");
    expect(message).not.toContain(dir);
    expect(message).not.toContain(tmpdir());
  }
  await a.close();
});
