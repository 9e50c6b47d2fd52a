/**
 * The directory backend: one file a key, `<dir>/<encoded key>.json` holding `{"version":n,"value":…}` (a
 * key too long for that name: `~<hash>.json`, with the key inside; see `_directory-files.ts`), meant for a
 * persistent volume. A write is atomic and durable before it is acknowledged: temp file,
 * fdatasync, rename over the old file, fsync of the directory (without the last, a crash may forget the
 * rename). A crash leaves either the old or the new document, never a torn one; stray temp files are
 * removed when the backend opens.
 *
 * One writer a directory: operations on a key are serialised in this process, so a backend takes the
 * directory's single-writer lock (`_directory-lock.ts`) before it touches anything, and a second one —
 * another process, or another backend in this one — is refused while the first is open (share a directory
 * between agents by sharing one `agentd store`, or use Redis).
 *
 * A document is read with one synchronous call: it is read whole, and an asynchronous read adds a trip
 * through the thread pool that costs more than the read on a loaded machine. The rename stays asynchronous
 * (measured: a synchronous rename made a compare-and-set slower while other writers kept the disk busy). A
 * compare-and-set reads only the version at the head of the current file (it parses the document only when
 * the versions differ, to return it).
 */
import { closeSync, fdatasyncSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import { fileNameOf, keyOfFileName, withoutPaths } from "./_directory-files.ts";
import { lockDirectory, type DirectoryLock } from "./_directory-lock.ts";
import { checkKey } from "./key.ts";
import type { ChangeListener, CompareAndSetResult, ListedKey, StoreBackend, StoredDocument } from "./types.ts";

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
    const fail = (e: unknown) =>
      new AgentdError("E_STORE", `cannot use store directory ${dir}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
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
    return this.guarded(`read "${key}"`, () => this.read(checkKey(key)));
  }

  put(key: string, value: unknown): Promise<number> {
    return this.guarded(`write "${key}"`, () =>
      this.serial(checkKey(key), async () => {
        const version = ((await this.read(key))?.version ?? 0) + 1;
        await this.write(key, version, value);
        return version;
      }),
    );
  }

  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult> {
    return this.guarded(`write "${key}"`, () =>
      this.serial(checkKey(key), async (): Promise<CompareAndSetResult> => {
        const version = this.versionOf(key);
        if (version !== expectedVersion) {
          const current = await this.read(key);
          return current ? { ok: false, version: current.version, value: current.value } : { ok: false, version: 0 };
        }
        await this.write(key, version + 1, value);
        return { ok: true, version: version + 1 };
      }),
    );
  }

  delete(key: string, expectedVersion?: number): Promise<boolean> {
    return this.guarded(`delete "${key}"`, () =>
      this.serial(checkKey(key), async () => {
        const current = await this.read(key);
        if (!current || (expectedVersion !== undefined && current.version !== expectedVersion)) return false;
        unlinkSync(this.path(key));
        this.syncDir();
        this.changed(key);
        return true;
      }),
    );
  }

  list(prefix: string): Promise<ListedKey[]> {
    return this.guarded("list its documents", async () => {
      const out: ListedKey[] = [];
      for (const name of readdirSync(this.dir)) {
        const found = keyOfFileName(name);
        // A hashed name hides its key: the document says it.
        const doc = found === "hashed" ? await this.readFile(name) : found?.key.startsWith(prefix) ? await this.read(found.key) : undefined;
        if (doc?.key.startsWith(prefix)) out.push({ key: doc.key, version: doc.version });
      }
      return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    });
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
    return join(this.dir, fileNameOf(key).name);
  }

  /** Run `op`; what fails reaches the caller without a path of ours (see `_directory-files.ts`). */
  private async guarded<T>(doing: string, op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw withoutPaths(e, doing);
    }
  }

  private async read(key: string): Promise<StoredDocument | undefined> {
    const doc = await this.readFile(fileNameOf(key).name);
    return doc && this.holding(key, doc);
  }

  /** `doc`, refused when it says another key than the one it was read for (a hashed name). */
  private holding(key: string, doc: StoredDocument): StoredDocument {
    if (doc.key !== key)
      throw new AgentdError("E_STORE", `store document for "${key}" holds the key "${doc.key}": restore it from a backup or delete it`);
    return doc;
  }

  /**
   * The version of `key`'s document (0 when absent), read from the head of its file: we write
   * `{"version":n,"value":…}` and nothing else does, so the whole document is parsed only when the file does
   * not look so (a hashed name's key must be checked: it sits at the end).
   */
  private versionOf(key: string): number {
    const { name, hashed } = fileNameOf(key);
    const text = this.text(name);
    if (text === undefined) return 0;
    const head = hashed ? null : /^\{"version":(\d{1,15}),"value":/.exec(text);
    if (head && text.endsWith("}")) return Number(head[1]);
    return this.holding(key, this.parse(name, text)).version;
  }

  /** The text of file `name`, or undefined when it is absent. */
  private text(name: string): string | undefined {
    try {
      return readFileSync(join(this.dir, name), "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw e;
    }
  }

  /** The document in file `name` (its key from the name, or from inside a hashed one); undefined if absent. */
  private async readFile(name: string): Promise<StoredDocument | undefined> {
    const text = this.text(name);
    return text === undefined ? undefined : this.parse(name, text);
  }

  /** File `name`'s `text` as a document, checked (see `readFile`). */
  private parse(name: string, text: string): StoredDocument {
    let doc: { version: number; value: unknown; key?: unknown };
    try {
      doc = JSON.parse(text);
    } catch (e) {
      // Never written by us (renames are atomic): say so rather than treating it as absent. The file's name
      // is relative to the store directory, which a client must not learn.
      throw new AgentdError("E_STORE", `store document ${name} is not valid JSON: restore it from a backup or delete it`, { cause: e });
    }
    const named = keyOfFileName(name);
    const key = typeof named === "object" ? named.key : doc.key;
    if (typeof key !== "string")
      throw new AgentdError("E_STORE", `store document ${name} does not say its key: restore it from a backup or delete it`);
    return { key, version: doc.version, value: doc.value };
  }

  private async write(key: string, version: number, value: unknown): Promise<void> {
    const { name, hashed } = fileNameOf(key);
    const body = JSON.stringify(hashed ? { version, value, key } : { version, value });
    const temp = join(this.dir, `${TEMP}${process.pid}-${++this.seq}`);
    const fd = openSync(temp, "w", 0o600);
    try {
      writeSync(fd, body);
      // The data and what is needed to read it back (its size); the file's times need no flush of their own.
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await rename(temp, join(this.dir, name));
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
    void run
      .catch(() => {})
      .finally(() => {
        if (this.queues.get(key) === run) this.queues.delete(key);
      });
    return run;
  }
}
