/**
 * The local state directory as a document store, for conversations when no store is configured
 * (`$XDG_STATE_HOME/agentd/conversations`, else `~/.local/state/agentd/conversations`). It is the directory
 * backend, but opened for each operation and closed after it: the backend holds its directory's
 * single-writer lock while open, and two `agentd run --continue` in two terminals must both get through.
 * A process finding the lock held waits for it (a few milliseconds: one read or one write), up to
 * `lockWaitMs`. Within this process operations are queued, since a second open would meet our own lock.
 * Nothing tells one process of another's writes, so `watchKeys` watches the directory itself (the approval
 * desk hears a decision taken by another process on the same state directory so).
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { DirectoryBackend } from "../../store/directory-backend.ts";
import { watchDirectoryKeys } from "../../store/directory-watch.ts";
import type { CompareAndSetResult, ListedKey, StoredDocument } from "../../store/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { DocumentStore } from "./document-conversations.ts";

/** Where conversations are kept without a configured store. */
export function localConversationsDir(env: Record<string, string | undefined> = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".local", "state");
  return join(state, "agentd", "conversations");
}

/** See the module header. */
export class LocalDocuments implements DocumentStore {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly lockWaitMs = 10_000,
  ) {}

  get(key: string): Promise<StoredDocument | undefined> {
    return this.with((b) => b.get(key));
  }

  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult> {
    return this.with((b) => b.compareAndSet(key, expectedVersion, value));
  }

  delete(key: string, expectedVersion?: number): Promise<boolean> {
    return this.with((b) => b.delete(key, expectedVersion));
  }

  list(prefix: string): Promise<ListedKey[]> {
    return this.with((b) => b.list(prefix));
  }

  /**
   * Hear every change of a key under `prefix`, by this process or another one on the directory (`fs.watch`
   * and a periodic re-list: store/directory-watch.ts); resolves, once hearing, to the unsubscribe.
   */
  async watchKeys(prefix: string, onChange: (key: string) => void, relistMs?: number): Promise<() => Promise<void>> {
    const off = await watchDirectoryKeys({ dir: this.dir, prefix, list: (p) => this.list(p), onChange, relistMs });
    return async () => off();
  }

  private with<T>(op: (backend: DirectoryBackend) => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => {
      const backend = await this.open();
      try {
        return await op(backend);
      } finally {
        await backend.close();
      }
    });
    this.tail = next.catch(() => {});
    return next;
  }

  /** Open the backend, waiting while another process holds the directory (backing off, bounded). */
  private async open(): Promise<DirectoryBackend> {
    const until = Date.now() + this.lockWaitMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
      try {
        return new DirectoryBackend(this.dir);
      } catch (e) {
        if (!AgentdError.isInstance(e) || e.code !== "E_STORE_LOCKED" || Date.now() >= until) throw e;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}
