/**
 * Retention of finished work in a store: documents that only answer "already done" (claims of succeeded
 * runs, served runs' result records) are kept for a retention period, then deleted by a sweep. Every
 * replica sharing the store sweeps on its own timer; a delete names the version it read, so a document
 * rewritten meanwhile (a run id claimed again) is never deleted, and racing sweepers delete each document
 * once. Readers do not depend on the sweep's timing: a document past its retention is treated as absent by
 * whoever reads it first ({@link RunClaims}), the sweep only gives the space back.
 *
 * Cost: one `list` of each swept prefix and one `get` of each listed key a sweep (every quarter of the
 * retention, at most hourly).
 */
import type { Logger } from "../log.ts";
import type { ListedKey, StoredDocument } from "./types.ts";

/** What a sweep needs of a store ({@link StoreClient} over any MCP store, or a backend). */
export interface SweepStore {
  list(prefix: string): Promise<ListedKey[]>;
  get(key: string): Promise<StoredDocument | undefined>;
  delete(key: string, expectedVersion?: number): Promise<boolean>;
}

/** Documents under `prefix` whose `expiresAt(value)` (epoch ms) has passed are deleted; undefined keeps one. */
export interface SweepRule {
  prefix: string;
  expiresAt(value: unknown, key: string, store: SweepStore): number | undefined | Promise<number | undefined>;
}

/** Options of {@link StoreSweeper}. */
export interface StoreSweeperOptions {
  store: () => Promise<SweepStore>;
  rules: readonly SweepRule[];
  /** Between sweeps (the first comes one interval after `start`). */
  intervalMs: number;
  /** `store.swept` (info, when something was deleted), `store.sweep-failed` (warning). */
  logger: Logger;
  /** Names what is swept in its log lines (e.g. `served-runs`). */
  name: string;
  now?: () => number;
}

/** How often to sweep for a retention: every quarter of it, between 1 s and 1 hour. */
export const sweepInterval = (retentionMs: number): number => Math.min(Math.max(retentionMs / 4, 1000), 3_600_000);

/** See the module header. */
export class StoreSweeper {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly options: StoreSweeperOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Sweep every `intervalMs` until {@link stop}. */
  start(): void {
    if (this.stopped || this.timer) return;
    const next = () => {
      this.timer = setTimeout(() => {
        this.running = this.sweep()
          .catch((error: unknown) =>
            this.options.logger.warn("store.sweep-failed", {
              swept: this.options.name,
              error: error instanceof Error ? error.message : String(error),
              message: "tried again at the next sweep",
            }),
          )
          .finally(() => {
            this.running = undefined;
            if (!this.stopped) next();
          });
      }, this.options.intervalMs);
      this.timer.unref?.();
    };
    next();
  }

  /** One sweep now: how many documents were read and deleted. */
  async sweep(): Promise<{ checked: number; deleted: number }> {
    const store = await this.options.store();
    let checked = 0;
    let deleted = 0;
    for (const rule of this.options.rules) {
      for (const { key } of await store.list(rule.prefix)) {
        if (this.stopped) break;
        const doc = await store.get(key);
        if (!doc) continue;
        checked++;
        const at = await rule.expiresAt(doc.value, key, store);
        if (at !== undefined && at <= this.now() && (await store.delete(key, doc.version))) deleted++;
      }
    }
    if (deleted > 0) this.options.logger.info("store.swept", { swept: this.options.name, checked, deleted });
    else this.options.logger.debug("store.swept", { swept: this.options.name, checked, deleted });
    return { checked, deleted };
  }

  /** Stop sweeping (waits for a sweep under way). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
