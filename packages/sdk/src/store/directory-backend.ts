/**
 * The directory backend: one file a key, `<dir>/<encoded key>.json` holding `{"version":n,"value":…}`,
 * meant for a persistent volume. A write is atomic and durable before it is acknowledged: temp file,
 * fsync, rename over the old file, fsync of the directory (without the last, a crash may forget the
 * rename). A crash leaves either the old or the new document, never a torn one; stray temp files are
 * removed when the backend opens.
 *
 * One writer a directory: operations on a key are serialised in this process, so a backend takes the
 * directory's single-writer lock (`_directory-lock.ts`) before it touches anything, and a second one —
 * another process, or another backend in this one — is refused while the first is open (share a directory
 * between agents by sharing one `agentd store`, or use Redis).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { lockDirectory, type DirectoryLock } from "./_directory-lock.ts";
import { checkKey } from "./key.ts";
import type { ChangeListener, CompareAndSetResult, ListedKey, StoreBackend, StoredDocument } from "./types.ts";

const SUFFIX = ".json";
const TEMP = ".tmp-";

/** A {@link StoreBackend} on a local directory (created if missing). */
export class DirectoryBackend implements StoreBackend {
  readonly kind = "directory";
  private readonly listeners = new Set<ChangeListener>();
  /** The tail of each key's queue of operations. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private seq = 0;
  private readonly lock: DirectoryLock;

  /** Open (creating it if missing) and lock `dir`; throws `E_STORE_LOCKED` while another backend holds it. */
  constructor(readonly dir: string) {
    const fail = (e: unknown) => new AgentdError("E_STORE", `cannot use store directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw fail(e);
    }
    // Locked before the temp files are swept: they may be another writer's writes in flight.
    try {
      this.lock = lockDirectory(dir);
    } catch (e) {
      throw AgentdError.isInstance(e) ? e : fail(e);
    }
    try {
      for (const name of readdirSync(dir)) if (name.startsWith(TEMP)) unlinkSync(join(dir, name));
    } catch (e) {
      this.lock.release();
      throw fail(e);
    }
  }

  get(key: string): Promise<StoredDocument | undefined> {
    return this.read(checkKey(key));
  }

  put(key: string, value: unknown): Promise<number> {
    return this.serial(checkKey(key), async () => {
      const version = ((await this.read(key))?.version ?? 0) + 1;
      await this.write(key, version, value);
      return version;
    });
  }

  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult> {
    return this.serial(checkKey(key), async (): Promise<CompareAndSetResult> => {
      const current = await this.read(key);
      const version = current?.version ?? 0;
      if (version !== expectedVersion) return current ? { ok: false, version, value: current.value } : { ok: false, version: 0 };
      await this.write(key, version + 1, value);
      return { ok: true, version: version + 1 };
    });
  }

  delete(key: string, expectedVersion?: number): Promise<boolean> {
    return this.serial(checkKey(key), async () => {
      const current = await this.read(key);
      if (!current || (expectedVersion !== undefined && current.version !== expectedVersion)) return false;
      unlinkSync(this.path(key));
      this.syncDir();
      this.changed(key);
      return true;
    });
  }

  async list(prefix: string): Promise<ListedKey[]> {
    const keys = readdirSync(this.dir)
      .filter((n) => n.endsWith(SUFFIX) && !n.startsWith(TEMP))
      .map((n) => decodeURIComponent(n.slice(0, -SUFFIX.length)))
      .filter((k) => k.startsWith(prefix))
      .sort();
    const out: ListedKey[] = [];
    for (const key of keys) {
      const doc = await this.read(key);
      if (doc) out.push({ key, version: doc.version });
    }
    return out;
  }

  watch(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Finish the operations in flight, then let go of the directory's lock. */
  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((p) => p.catch(() => {})));
    this.lock.release();
  }

  private path(key: string): string {
    return join(this.dir, encodeURIComponent(key) + SUFFIX);
  }

  private async read(key: string): Promise<StoredDocument | undefined> {
    let text: string;
    try {
      text = await readFile(this.path(key), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
    try {
      const { version, value } = JSON.parse(text) as { version: number; value: unknown };
      return { key, version, value };
    } catch (e) {
      // Never written by us (renames are atomic): say so rather than treating it as absent.
      throw new AgentdError("E_STORE", `store document ${this.path(key)} is not valid JSON: restore it from a backup or delete it`, { cause: e });
    }
  }

  private async write(key: string, version: number, value: unknown): Promise<void> {
    const body = JSON.stringify({ version, value });
    const temp = join(this.dir, `${TEMP}${process.pid}-${++this.seq}`);
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await rename(temp, this.path(key));
    this.syncDir();
    this.changed(key);
  }

  private syncDir(): void {
    const fd = openSync(this.dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  private changed(key: string): void {
    for (const l of this.listeners) l(key);
  }

  /** Run `op` after every operation queued before it on `key`. */
  private serial<T>(key: string, op: () => Promise<T>): Promise<T> {
    const before = this.queues.get(key) ?? Promise.resolve();
    const run = before.catch(() => {}).then(op);
    this.queues.set(key, run);
    void run.catch(() => {}).finally(() => {
      if (this.queues.get(key) === run) this.queues.delete(key);
    });
    return run;
  }
}
