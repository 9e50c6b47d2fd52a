/**
 * Watching a store directory that no server fronts: writes and deletes made by another opener of the
 * directory (a second `LocalDocuments`, as another process would be) are heard under the prefix only, each
 * change once it lands; nothing is heard after the unsubscribe.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalDocuments } from "../agent/conversations/local-documents.ts";
import { watchDirectoryKeys } from "./directory-watch.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("watching a store directory", () => {
  test("another opener's writes and deletes under the prefix are heard; others and later ones are not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-dir-watch-"));
    dirs.push(dir);
    const mine = new LocalDocuments(dir);
    const other = new LocalDocuments(dir);
    await other.compareAndSet("q/before", 0, { n: 0 });
    const heard: string[] = [];
    let wake: (() => void) | undefined;
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    const off = await watchDirectoryKeys({
      dir,
      prefix: "q/",
      list: (p) => mine.list(p),
      onChange: (key) => (heard.push(key), wake?.()),
    });
    let landed = next();
    await other.compareAndSet("elsewhere", 0, { n: 1 });
    await other.compareAndSet("q/one", 0, { n: 1 });
    await landed;
    expect(heard).toEqual(["q/one"]);
    landed = next();
    await other.delete("q/before");
    await landed;
    expect(heard).toEqual(["q/one", "q/before"]);
    off();
    await other.compareAndSet("q/two", 0, { n: 2 });
    // Heard by a second watcher started after, so the first has had its chance to ring.
    const late: string[] = [];
    let seen!: () => void;
    const lateHeard = new Promise<void>((resolve) => (seen = resolve));
    const offLate = await watchDirectoryKeys({ dir, prefix: "q/", list: (p) => mine.list(p), onChange: (k) => (late.push(k), seen()) });
    await other.compareAndSet("q/two", 1, { n: 3 });
    await lateHeard;
    offLate();
    expect(late).toEqual(["q/two"]);
    expect(heard).toEqual(["q/one", "q/before"]);
  });
});
