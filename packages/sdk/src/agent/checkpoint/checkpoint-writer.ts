/**
 * Writes the checkpoint through an MCP store: debounced (changes within `debounceMs` are one write),
 * coalesced (a change during a write is one more write after it, never a parallel one), skipped when
 * nothing changed, and compare-and-set on the version last read or written — so a second process writing
 * under the same identity is noticed (`checkpoint.conflict`, one warning line) instead of silently lost.
 * The live process is the truth for its own facts: after a conflict it writes over the newer version.
 */
import type { Logger } from "../../log.ts";
import type { CompareAndSetResult, StoredDocument } from "../../store/types.ts";
import type { CheckpointDocument } from "./checkpoint-format.ts";

/** What the writer needs of a store ({@link StoreClient} over any MCP store, or a backend). */
export interface CheckpointStore {
  get(key: string): Promise<StoredDocument | undefined>;
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult>;
}

/** Options of {@link CheckpointWriter}. */
export interface CheckpointWriterOptions {
  store: () => Promise<CheckpointStore>;
  key: string;
  /** The document as of now (`writtenAt` is set by the writer). */
  build: () => Omit<CheckpointDocument, "writtenAt">;
  debounceMs?: number;
  logger: Logger;
}

/** See the module header. */
export class CheckpointWriter {
  /** The store version of the last write (or of the document read at restore). */
  version = 0;
  /** Write latencies in ms (the last 1000), for status and the bench. */
  readonly latencies: number[] = [];
  private lastBody: string | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;

  constructor(private readonly options: CheckpointWriterOptions) {}

  /** Note a change: a write follows within the debounce window. */
  schedule(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.options.debounceMs ?? 100);
  }

  /** Write what is pending now and wait for it (at stop). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    if (this.dirty) await this.drain();
  }

  /** Flush, then take no more changes. */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    this.closed = true;
  }

  private drain(): Promise<void> {
    this.writing ??= (async () => {
      try {
        while (this.dirty) {
          this.dirty = false;
          await this.writeOnce();
        }
      } catch (error) {
        // The store is unreachable: keep the change and try again later; the agent works on regardless.
        this.dirty = true;
        this.options.logger.warn("checkpoint.write-failed", {
          key: this.options.key,
          error: error instanceof Error ? error.message : String(error),
        });
        if (!this.closed) this.timer ??= setTimeout(() => ((this.timer = undefined), void this.drain()), 1000);
      } finally {
        this.writing = undefined;
      }
    })();
    return this.writing;
  }

  private async writeOnce(): Promise<void> {
    const body = this.options.build();
    const text = JSON.stringify(body);
    if (text === this.lastBody) return;
    const store = await this.options.store();
    const document: CheckpointDocument = { ...body, writtenAt: new Date().toISOString() };
    const started = performance.now();
    let set = await store.compareAndSet(this.options.key, this.version, document);
    if (!set.ok) {
      this.options.logger.warn("checkpoint.conflict", {
        key: this.options.key,
        expected: this.version,
        found: set.version,
        message: "another process wrote this checkpoint; writing ours over it",
      });
      set = await store.compareAndSet(this.options.key, set.version, document);
      if (!set.ok) throw new Error(`checkpoint ${this.options.key} changed twice under us (version ${set.version})`);
    }
    const ms = performance.now() - started;
    this.latencies.push(ms);
    if (this.latencies.length > 1000) this.latencies.shift();
    this.version = set.version;
    this.lastBody = text;
    this.options.logger.info("checkpoint.written", {
      key: this.options.key,
      version: set.version,
      subscriptions: body.subscriptions.length,
      handles: body.handles.length,
      runs: body.runs.length,
      // Which runs this write recorded: a write built before a run ended may be acknowledged after its
      // `trigger.run-end` line, so a count alone cannot say whether a given run is in the stored document.
      runIds: body.runs.slice(0, 20).map((r) => r.runId),
      tasks: body.tasks?.length ?? 0,
      servedTasks: body.servedTasks?.length,
      bytes: text.length,
      ms: Math.round(ms * 10) / 10,
    });
  }
}
