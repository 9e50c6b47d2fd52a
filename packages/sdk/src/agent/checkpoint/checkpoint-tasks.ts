/**
 * The checkpoint's task handles: the remote MCP tasks this agent's runs started (a task-augmented
 * `tools/call` being polled), each with its server, task id, run id, tool and arguments. They are written
 * with the rest of the checkpoint; after a restart, a re-run of the same run id that makes the same call
 * re-attaches to the task (`tasks/get` → `tasks/result`) instead of calling the tool again, and calls it
 * again when the server no longer knows the task. A run's entries go when the run ends.
 */
import type { JournaledTask, TaskCallKey, TaskJournal } from "../../mcp/client/task-journal.ts";

const keyOf = (k: TaskCallKey): string => JSON.stringify([k.server, k.runId, k.tool, k.args]);

/** See the module header. */
export class CheckpointTasks implements TaskJournal {
  private readonly entries = new Map<string, JournaledTask>();
  private readonly listeners = new Set<() => void>();

  find(key: TaskCallKey): JournaledTask | undefined {
    return this.entries.get(keyOf(key));
  }

  started(key: TaskCallKey, taskId: string): void {
    this.entries.set(keyOf(key), {
      server: key.server,
      runId: key.runId,
      tool: key.tool,
      args: key.args,
      taskId,
      startedAt: new Date().toISOString(),
    });
    this.changed();
  }

  ended(key: TaskCallKey): void {
    if (this.entries.delete(keyOf(key))) this.changed();
  }

  /** Forget a run's tasks (it ended: its calls are answered or abandoned). */
  endRun(runId: string): void {
    let any = false;
    for (const [k, t] of this.entries) if (t.runId === runId) any = this.entries.delete(k);
    if (any) this.changed();
  }

  /** Take tasks read from a checkpoint (restore, or adopting a taken-over run). */
  load(tasks: readonly JournaledTask[]): void {
    for (const t of tasks) this.entries.set(keyOf(t), { ...t });
    if (tasks.length) this.changed();
  }

  list(): JournaledTask[] {
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
