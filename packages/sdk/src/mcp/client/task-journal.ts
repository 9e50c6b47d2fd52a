/**
 * Where a client notes the remote tasks it started, so a process restarted with the supervisor checkpoint
 * (docs/durability.md) re-attaches to them instead of calling the tool again. A task-augmented `tools/call`
 * is named by its server, the run id in its `_meta`, the tool and its arguments: when the same run is run
 * again (reconciliation re-triggers it, or another replica takes its claim over) and its model asks for the
 * same call, the journal answers the task id of the call made before the restart.
 */
import type { Logger } from "../../log.ts";

/** What names one task-augmented call across a restart. */
export interface TaskCallKey {
  server: string;
  runId: string;
  tool: string;
  /** The call's arguments as canonical JSON (object keys sorted). */
  args: string;
}

/** A remote task a client started, as the journal keeps it. */
export interface JournaledTask extends TaskCallKey {
  taskId: string;
  startedAt: string;
}

/** Implemented by the agent's checkpoint; consulted and told by {@link McpClient.callTool}. */
export interface TaskJournal {
  /** The task a call with this key started before, if any. */
  find(key: TaskCallKey): JournaledTask | undefined;
  /** The server accepted the call as task `taskId`. */
  started(key: TaskCallKey, taskId: string): void;
  /** The task's result was fetched, or the server no longer knows it: forget it. */
  ended(key: TaskCallKey): void;
}

/** JSON with object keys sorted at every depth, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The hooks a task-augmented call reports to the journal with: the task started before (if any), its start and its end. */
export interface JournalHooks {
  resumeTaskId?: string;
  onTaskStarted: (taskId: string) => void;
  onTaskEnded: () => void;
  onResumed: () => void;
}

/** The journal hooks of the call named by `key`; `onResumed` is told when a task from before a restart is followed. */
export function journalHooks(journal: TaskJournal, key: TaskCallKey, onResumed: () => void): JournalHooks {
  const before = journal.find(key);
  return {
    resumeTaskId: before?.taskId,
    onTaskStarted: (taskId) => journal.started(key, taskId),
    onTaskEnded: () => journal.ended(key),
    onResumed,
  };
}

/** The journal hooks of a task-augmented call to `server` (none without a journal). */
export function journaledCall(
  journal: TaskJournal | undefined,
  server: string | undefined,
  logger: Logger,
  tool: string,
  args: Record<string, unknown>,
  runId: string,
): Partial<JournalHooks> {
  if (!journal) return {};
  const key: TaskCallKey = { server: server ?? "peer", runId, tool, args: canonicalJson(args) };
  return journalHooks(journal, key, () => logger.info("mcp.task_reattached", { tool, runId }));
}
