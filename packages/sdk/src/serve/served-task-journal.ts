/**
 * What a served MCP task leaves behind for a restart: the retained request of each task that is not
 * terminal (its id, owner, tool, arguments, ttl, run id). The task table notes a task here when it starts
 * and forgets it when it ends; the agent's checkpoint (`agent/checkpoint/`) keeps the notes in the store.
 * After a restart the table re-creates each noted task under the same id and owner and re-runs its
 * request — under the same run id, so the run is the same run (idempotent by run id). A terminal task's
 * outcome is never noted: documents stay small, and a task that ended before the restart is "not found".
 */
import type { MessageExtra } from "../transport/types.ts";

/** The credential facts a re-run needs to act as the task's principal (never a token). */
export type ServedTaskAuth = NonNullable<MessageExtra["authInfo"]>;

/** A served task that was not terminal when noted. */
export interface ServedTaskRecord {
  taskId: string;
  /** The owning principal's id (`local`, `bearer:NAME`, …). */
  owner: string;
  /** The principal's authentication as the transport gave it (absent for `local`). */
  auth?: ServedTaskAuth;
  /** The tool called and its arguments (the retained request). */
  tool: string;
  args: Record<string, unknown>;
  /** The run the work is (re-run under the same id). */
  runId: string;
  ttl: number | null;
  createdAt: string;
}

/** Where the task table notes its tasks (the checkpoint's served-task map). */
export interface ServedTaskJournal {
  started(record: ServedTaskRecord): void;
  ended(taskId: string): void;
}

/** The auth facts worth keeping: principal, scheme, role, permissions, issuer — copied, nothing else. */
export function retainedAuth(auth: MessageExtra["authInfo"]): ServedTaskAuth | undefined {
  if (!auth) return undefined;
  return {
    principal: auth.principal,
    scheme: auth.scheme,
    role: auth.role,
    permissions: auth.permissions && [...auth.permissions],
    issuer: auth.issuer || undefined,
  };
}
