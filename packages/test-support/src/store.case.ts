/**
 * The store's case suite: every backend, through the MCP server and the typed client. Each backend's
 * test file is one call of {@link runStoreCases}.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { connectStore } from "./connect-store.ts";
import type { StoreBackend, StoreClient } from "@agentd/sdk/store";

/** A client connected to a store, and how to disconnect it. */
export interface ConnectedStore {
  store: StoreClient;
  close(): Promise<void>;
}

/** How a backend's test file opens a fresh, empty backend (and a second one on the same data, when it can). */
export interface BackendCaseOptions {
  open(): Promise<StoreBackend>;
  /**
   * Another backend instance on the same data as the last `open()` (a second store process), for backends
   * that share their data between stores (Redis); absent where one store owns its data (a directory).
   */
  reopen?(): Promise<StoreBackend>;
  skip?: boolean;
}

/** How a test file reaches a store served elsewhere (a real `agentd store` process over HTTP). */
export interface ServedCaseOptions {
  /** A client of a fresh, empty store. */
  connect(): Promise<ConnectedStore>;
  /** Another client (another session) of the same store as the last `connect()`. */
  connectAgain(): Promise<ConnectedStore>;
  skip?: boolean;
}

/** Either a backend served in this process, or a store served elsewhere. */
export type StoreCaseOptions = BackendCaseOptions | ServedCaseOptions;

/** Register the shared store tests. */
export function runStoreCases(options: StoreCaseOptions): void {
  const t = test.skipIf(options.skip === true);
  let store: StoreClient;
  let closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    if (options.skip) return;
    if ("connect" in options) {
      const c = await options.connect();
      store = c.store;
      closers = [c.close];
      return;
    }
    const backend = await options.open();
    const c = await connectStore(backend);
    store = c.store;
    closers = [c.close, () => backend.close()];
  });
  /** A second client on the same data: a second backend and server here, or a second session there. */
  const second = async (): Promise<StoreClient> => {
    if ("connect" in options) {
      const c = await options.connectAgain();
      closers.push(c.close);
      return c.store;
    }
    const other = await (options.reopen as () => Promise<StoreBackend>)();
    closers.push(() => other.close());
    const c = await connectStore(other);
    closers.push(c.close);
    return c.store;
  };
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers = [];
  });

  t("a missing key reads as absent", async () => {
    expect(await store.get("nothing/here")).toBeUndefined();
  });

  t("put creates version 1, then counts up; get returns the value", async () => {
    expect(await store.put("runs/a", { n: 1 })).toBe(1);
    expect(await store.put("runs/a", { n: 2, nested: ["x", null, true] })).toBe(2);
    expect(await store.get("runs/a")).toEqual({ key: "runs/a", version: 2, value: { n: 2, nested: ["x", null, true] } });
  });

  t("compare-and-set at 0 creates only when absent; at the read version wins once", async () => {
    expect(await store.compareAndSet("claim:1", 0, "me")).toEqual({ ok: true, version: 1 });
    expect(await store.compareAndSet("claim:1", 0, "you")).toEqual({ ok: false, version: 1, value: "me" });
    expect(await store.compareAndSet("claim:1", 1, "me again")).toEqual({ ok: true, version: 2 });
    expect(await store.compareAndSet("claim:1", 1, "stale")).toEqual({ ok: false, version: 2, value: "me again" });
    expect(await store.compareAndSet("claim:absent", 3, "x")).toEqual({ ok: false, version: 0 });
  });

  t("racing compare-and-sets at one version: exactly one wins", async () => {
    await store.put("race", 0);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.compareAndSet("race", 1, i)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect((await store.get("race"))?.version).toBe(2);
  });

  t("delete: conditional on the version when given; false when absent", async () => {
    await store.put("d", 1);
    expect(await store.delete("d", 7)).toBe(false);
    expect(await store.delete("d", 1)).toBe(true);
    expect(await store.get("d")).toBeUndefined();
    expect(await store.delete("d")).toBe(false);
    await store.put("d", 2);
    expect(await store.delete("d")).toBe(true);
  });

  t("list: keys by prefix, sorted, with versions", async () => {
    await store.put("b/2", 1);
    await store.put("b/1", 1);
    await store.put("b/1", 2);
    await store.put("c", 1);
    expect(await store.list("b/")).toEqual([
      { key: "b/1", version: 2 },
      { key: "b/2", version: 1 },
    ]);
    expect((await store.list()).map((k) => k.key)).toEqual(["b/1", "b/2", "c"]);
  });

  t("invalid keys are refused with a clear message", async () => {
    await expect(store.put("../../sdk/src/store/etc/passwd", 1)).rejects.toThrow(/invalid store key/);
    await expect(store.get("")).rejects.toThrow(/invalid store key/);
  });

  t("a subscribed client hears notifications/resources/updated on put and delete", async () => {
    const heard: string[] = [];
    let wake: () => void = () => {};
    const unwatch = await store.watch("w/1", (key) => {
      heard.push(key);
      wake();
    });
    const next = () => new Promise<void>((r) => (wake = r));
    let n = next();
    await store.put("w/1", 1);
    await store.put("w/other", 1);
    await n;
    n = next();
    await store.delete("w/1");
    await n;
    expect(heard).toEqual(["w/1", "w/1"]);
    await unwatch();
  });

  t("the document resource reads as JSON {key, version, value}", async () => {
    await store.put("r", { a: 1 });
    const read = await store.mcp.readResource("store://doc/r");
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ key: "r", version: 1, value: { a: 1 } });
  });

  // Only a served store has sessions of its own to cross: the case is not part of an in-process backend's suite.
  if ("connect" in options) {
    test.skipIf(options.skip === true)("a write through one session notifies a subscriber of another session", async () => {
      const other = await second();
      let heard: (key: string) => void = () => {};
      const notified = new Promise<string>((r) => (heard = r));
      const unwatch = await store.watch("x/1", (key) => heard(key));
      await other.put("x/1", { by: "the other session" });
      expect(await notified).toBe("x/1");
      await unwatch();
    });
  }

  // Only where stores share their data (Redis, or sessions of one server): a directory has one store, by its lock.
  if ("connect" in options || options.reopen)
    t("a second store (or session) on the same data sees the writes and takes part in compare-and-set", async () => {
      const other = await second();
      await store.put("shared", "first");
      expect(await other.get("shared")).toEqual({ key: "shared", version: 1, value: "first" });
      expect((await other.compareAndSet("shared", 1, "second")).ok).toBe(true);
      expect((await store.compareAndSet("shared", 1, "lost")).ok).toBe(false);
      expect((await store.get("shared"))?.value).toBe("second");
    });
}
