/**
 * The store's data model, shared by its backends, its MCP server and its client: JSON documents under
 * string keys, each with a version that grows by one on every write. Compare-and-set names the version
 * it read (0: "must not exist"), so two writers racing on one key cannot both win.
 */

/** A document as stored. */
export interface StoredDocument {
  key: string;
  /** ≥ 1; grows by one on every write of the key (a key written again after a delete starts at 1). */
  version: number;
  value: unknown;
}

/** What a compare-and-set did. */
export type CompareAndSetResult =
  | { ok: true; version: number }
  /** The key's version was not the expected one: what is there now (version 0: absent). */
  | { ok: false; version: number; value?: unknown };

/** One key in a listing. */
export interface ListedKey {
  key: string;
  version: number;
}

/** Called with the key that changed (written or deleted). */
export type ChangeListener = (key: string) => void;

/**
 * Where documents live. Every operation is atomic on its key; a resolved write is durable (the directory
 * backend fsyncs; Redis is as durable as its own configuration makes it).
 */
export interface StoreBackend {
  /** A short name for logs and errors (`directory`, `redis`). */
  readonly kind: string;
  get(key: string): Promise<StoredDocument | undefined>;
  /** Write unconditionally; resolves with the new version. */
  put(key: string, value: unknown): Promise<number>;
  /** Write only if the key's version is `expectedVersion` (0: only if absent). */
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult>;
  /** Delete (only at `expectedVersion` when given); resolves whether a document was deleted. */
  delete(key: string, expectedVersion?: number): Promise<boolean>;
  /** Keys starting with `prefix`, sorted. */
  list(prefix: string): Promise<ListedKey[]>;
  /** Hear about changes (made through this backend; Redis: made by any store sharing the server). */
  watch(listener: ChangeListener): () => void;
  /** Resolves once changes are being heard (Redis: the SUBSCRIBE is confirmed); absent = at once. */
  watching?(): Promise<void>;
  /**
   * Resolves once the backend's server answers (Redis: a PING), or rejects within a bounded time saying it
   * cannot be reached; absent = nothing to reach. A store calls it before it serves anything.
   */
  ready?(): Promise<void>;
  close(): Promise<void>;
}
