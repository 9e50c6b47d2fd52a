/**
 * The checkpoint's served tasks: each MCP task `agentd serve` runs for a client (a task-augmented
 * `agent.run`) that is not terminal, with its retained request (`serve/served-task-journal.ts`). Written
 * with the rest of the checkpoint; after a restart the served task table re-creates them under the same ids
 * and owners and re-runs their requests under the same run ids. A task leaves the map when it ends: its
 * outcome is never written (a task that ended before the restart is "not found" after it).
 */
import type { ServedTaskJournal, ServedTaskRecord } from "../../serve/served-task-journal.ts";

/** See the module header. */
export class CheckpointServedTasks implements ServedTaskJournal {
  private readonly entries = new Map<string, ServedTaskRecord>();
  private readonly listeners = new Set<() => void>();
  private loaded = false;

  started(record: ServedTaskRecord): void {
    this.entries.set(record.taskId, structuredClone(record));
    this.changed();
  }

  ended(taskId: string): void {
    if (this.entries.delete(taskId)) this.changed();
  }

  /** Take the records read from a checkpoint, once (whichever of restore and serve reads it first). */
  load(records: readonly ServedTaskRecord[]): void {
    if (this.loaded) return;
    this.loaded = true;
    for (const r of records) if (!this.entries.has(r.taskId)) this.entries.set(r.taskId, structuredClone(r));
    if (records.length) this.changed();
  }

  /** Whether {@link load} ran. */
  get isLoaded(): boolean {
    return this.loaded;
  }

  list(): ServedTaskRecord[] {
    return [...this.entries.values()];
  }

  /** Called on every change; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
