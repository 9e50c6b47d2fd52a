import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { FileJobStore } from "./file-job-store.ts";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "agentd-jobs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("FileJobStore", () => {
  test("what one instance writes, a new instance reads (a restart)", async () => {
    const path = join(dir, "jobs.json");
    const a = new FileJobStore(path);
    expect(await a.get("daily")).toBeUndefined();
    await a.set("daily", "2026-01-01T07:00:00.000Z");
    await a.set("hourly", "2026-01-01T08:00:00.000Z");
    await a.set("daily", "2026-01-02T07:00:00.000Z");
    const b = new FileJobStore(path);
    expect(await b.get("daily")).toBe("2026-01-02T07:00:00.000Z");
    expect(await b.get("hourly")).toBe("2026-01-01T08:00:00.000Z");
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      version: 1,
      schedules: { daily: { lastFire: "2026-01-02T07:00:00.000Z" }, hourly: { lastFire: "2026-01-01T08:00:00.000Z" } },
    });
  });

  test("a reader never sees a partial file while writes go on, and no temp file is left", async () => {
    const path = join(dir, "jobs.json");
    const store = new FileJobStore(path);
    await store.set("s", new Date(0).toISOString());
    const writes = Array.from({ length: 50 }, (_, i) => store.set("s", new Date(i * 1000).toISOString()).then(() => i));
    let reads = 0;
    let done = false;
    const all = Promise.all(writes).then(() => (done = true));
    while (!done) {
      const text = await readFile(path, "utf8"); // the live file: always complete JSON
      expect(JSON.parse(text).version).toBe(1);
      reads++;
    }
    await all;
    expect(reads).toBeGreaterThan(0);
    expect(await new FileJobStore(path).get("s")).toBe(new Date(49_000).toISOString());
    expect(await readdir(dir)).toEqual(["jobs.json"]);
  });

  test("a temp file left by a crash before rename is ignored and cleaned up", async () => {
    const path = join(dir, "jobs.json");
    await new FileJobStore(path).set("s", "2026-01-01T00:00:00.000Z");
    await writeFile(join(dir, ".jobs.json.tmp-999-0"), '{"version":1,"sched'); // torn write, never renamed
    const store = new FileJobStore(path);
    expect(await store.get("s")).toBe("2026-01-01T00:00:00.000Z");
    expect(await readdir(dir)).toEqual(["jobs.json"]);
  });

  test("a file that is not a job store is a clear configuration error", async () => {
    const path = join(dir, "jobs.json");
    await writeFile(path, "not json");
    const error = await new FileJobStore(path).get("s").catch((e: unknown) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_CONFIG_INVALID");
    expect((error as Error).message).toBe(`job store ${path} is not a job store file; move it away or fix it`);
  });
});
