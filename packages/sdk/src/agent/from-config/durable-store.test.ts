/**
 * `durability.store`: one setting serves every durable part, a part's own store wins, contradictory
 * settings are refused in one line, and parts naming one stdio store share one child — a second
 * `store --dir` child on the same directory would be refused by the directory's lock.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseConfig } from "../../config/load.ts";
import { nullLogger } from "../../log.ts";
import { claimsFromConfig } from "./claims-from-config.ts";
import { checkpointFromConfig } from "./checkpoint-from-config.ts";
import { durableStoreEntry } from "./durable-store.ts";
import { jobStoreFromConfig } from "./job-store-from-config.ts";
import { servedRunsFromConfig } from "./served-runs-from-config.ts";
import { tokenStoreFromConfig } from "./token-store-from-config.ts";

const STORE_ENTRY = resolve(import.meta.dir, "../../store/__fixtures__/store-entry.ts");
const dirs: string[] = [];
const closers: Array<() => Promise<unknown> | undefined> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const STORE = { url: "https://agentd-store:7700/mcp" };
const OTHER = { url: "https://other-store:7700/mcp" };
const schedules = { schedules: [{ cron: "0 7 * * *", tz: "Europe/Berlin", instruction: "Morning summary" }] };
const lineOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "no error";
};

describe("durability.store", () => {
  test("alone, it serves claims, the checkpoint, OAuth tokens, the cron job store and served runs", () => {
    const config = parseConfig(
      { durability: { store: STORE }, capabilities: { checkpoint: true, cron: "timezones" }, triggers: schedules },
      {},
    );
    for (const part of ["claims", "checkpoint", "oauthTokens", "schedules", "servedRuns"] as const)
      expect(durableStoreEntry(config, part)).toEqual(STORE);
    expect(claimsFromConfig(config, nullLogger)).toBeDefined();
    expect(checkpointFromConfig(config, nullLogger)).toBeDefined();
    expect(tokenStoreFromConfig(config, nullLogger)).toBeDefined();
    expect(jobStoreFromConfig(config, nullLogger)?.key("s")).toBe("jobs/agentd/s");
    expect(servedRunsFromConfig(config, nullLogger)).toBeDefined();
  });

  test("a part's own store wins; without durability.store nothing new is turned on", () => {
    const config = parseConfig({ durability: { store: STORE, claims: { store: OTHER }, oauthTokens: { store: OTHER } } }, {});
    expect(durableStoreEntry(config, "claims")).toEqual(OTHER);
    expect(durableStoreEntry(config, "oauthTokens")).toEqual(OTHER);
    expect(durableStoreEntry(config, "servedRuns")).toEqual(STORE);
    const old = parseConfig({ durability: { claims: { store: OTHER } }, capabilities: { cron: "timezones" }, triggers: schedules }, {});
    expect(servedRunsFromConfig(old, nullLogger)).toBeUndefined();
    expect(jobStoreFromConfig(old, nullLogger)).toBeUndefined();
    expect(tokenStoreFromConfig(old, nullLogger)).toBeUndefined();
    // A job store file keeps schedule state in the file even with a store for the rest.
    const file = parseConfig(
      { durability: { store: STORE }, capabilities: { cron: "timezones" }, triggers: { ...schedules, jobStore: "/data/jobs.json" } },
      {},
    );
    expect(jobStoreFromConfig(file, nullLogger)).toBeUndefined();
  });

  test("contradictory or incomplete settings are refused with one line", () => {
    const both = parseConfig(
      {
        durability: { store: STORE, schedules: {} },
        capabilities: { cron: "timezones" },
        triggers: { ...schedules, jobStore: "/data/jobs.json" },
      },
      {},
    );
    expect(lineOf(() => claimsFromConfig(both, nullLogger))).toBe(
      "triggers.jobStore (a file) and durability.schedules (a store) both keep the cron job store: remove one",
    );
    const utc = parseConfig({ durability: { store: STORE, schedules: {} } }, {});
    expect(lineOf(() => claimsFromConfig(utc, nullLogger))).toBe(
      'durability.schedules keeps the time-zone cron\'s last fires: set capabilities.cron to "timezones", or remove durability.schedules',
    );
    const none = parseConfig({ durability: { claims: { holder: "pod-0" } } }, {});
    expect(lineOf(() => claimsFromConfig(none, nullLogger))).toBe(
      'durability.claims needs a store: set durability.store (e.g. {"url": "https://agentd-store:7700/mcp"} or {"command": "agentd", "args": ["store", "--dir", "/var/lib/agentd"]}) or durability.claims.store',
    );
  });

  test("claims, the job store and served runs on one stdio store directory share one store child", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-durable-store-"));
    dirs.push(dir);
    const store = { command: process.execPath, args: [STORE_ENTRY, "--dir", join(dir, "store")] };
    const config = parseConfig(
      { durability: { store, claims: { holder: "pod-0" } }, capabilities: { cron: "timezones" }, triggers: schedules },
      {},
    );
    const claims = claimsFromConfig(config, nullLogger)!;
    const jobs = jobStoreFromConfig(config, nullLogger)!;
    const served = servedRunsFromConfig(config, nullLogger)!;
    closers.push(
      () => claims.close(),
      () => jobs.close(),
      () => served.close(),
    );
    const got = await claims.acquire("run-1", new AbortController().signal);
    expect(got.status).toBe("claimed");
    if (got.status === "claimed") await got.claim.end(true);
    await jobs.set("morning", "2026-01-01T06:00:00.000Z");
    expect(await jobs.get("morning")).toBe("2026-01-01T06:00:00.000Z");
    const start = await served.begin("order-1", new AbortController().signal);
    expect(start.status).toBe("run");
    if (start.status === "run") await start.finish({ stopReason: "end_turn", text: "shipped" });
    expect(await served.begin("order-1", new AbortController().signal)).toEqual({
      status: "done",
      answer: { stopReason: "end_turn", text: "shipped" },
    });
  }, 30_000);
});
