/**
 * The order in which runs started, for the console's history (newest first). The run registry keeps the
 * records and bounds them; this index only remembers `(owner, runId)` keys as the registry reports changes,
 * and drops a key once the registry no longer holds its run, so it never outgrows the registry's bounds by
 * more than the runs expired since the last read.
 */
import type { RunRecord, RunRegistry } from "../../serve/run-registry.ts";

/** A run and its owner. */
export interface OwnedRun {
  owner: string;
  record: RunRecord;
}

/** Keys of the registry's runs in start order. */
export class RunIndex {
  private readonly keys = new Map<string, { owner: string; runId: string; startedAt: string }>();
  private readonly off: () => void;
  /** The size at which keys of runs the registry let go are swept (it doubles with what is really held). */
  private pruneAt = 1024;

  constructor(private readonly registry: RunRegistry) {
    this.off = registry.onChange((runId, owner) => {
      if (runId === undefined) return;
      const record = registry.get(runId, owner);
      const key = `${owner}\n${runId}`;
      const known = this.keys.get(key);
      if (!record) this.keys.delete(key);
      // A run id started again is a new run: it moves to the newest end.
      else if (!known || known.startedAt !== record.startedAt) {
        this.keys.delete(key);
        this.keys.set(key, { owner, runId, startedAt: record.startedAt });
        if (this.keys.size > this.pruneAt) this.prune();
      }
    });
  }

  /** Held runs, newest first, of `owner` (every principal's without one), at most `limit`. */
  list(owner: string | undefined, limit: number): OwnedRun[] {
    const out: OwnedRun[] = [];
    const entries = [...this.keys.entries()];
    for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
      const [key, k] = entries[i]!;
      const record = this.registry.get(k.runId, k.owner);
      if (!record) {
        this.keys.delete(key);
        continue;
      }
      if (owner === undefined || k.owner === owner) out.push({ owner: k.owner, record });
    }
    return out;
  }

  /** Forget keys whose runs the registry let go. */
  private prune(): void {
    for (const [key, k] of this.keys) if (!this.registry.has(k.runId, k.owner)) this.keys.delete(key);
    this.pruneAt = Math.max(1024, this.keys.size * 2);
  }

  close(): void {
    this.off();
  }
}
