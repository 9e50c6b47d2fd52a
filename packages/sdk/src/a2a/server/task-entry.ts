/**
 * One A2A task as the task store holds it (its owner, the task as the wire shows it, who listens, what it
 * waits on), and the small helpers the task modules share: the run's instruction read from a message, the
 * state's word in a refusal, the clock.
 */
import type { ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { ElicitResult } from "../../wire/index.ts";
import {
  INTERRUPTED_STATES,
  TERMINAL_STATES,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
} from "../shared/types.ts";
import type { WaitingApproval } from "./approval-parts.ts";

/** A task held by the store. */
export interface Entry {
  owner: string;
  task: Task;
  updatedAt: number;
  controller: AbortController;
  listeners: Set<(e: StreamResponse) => void>;
  /** The question the task waits on (`input-required`), and how to hand its answer back to the run. */
  question?: { schema: Record<string, unknown>; answer: (result: ElicitResult) => void };
  /** Questions wait their turn: one at a time per task. */
  asking?: Promise<unknown>;
  /** The authorization the task waits on (`auth-required`): resolve true once it is done, false to give up. */
  authorization?: { server: string; done: (ok: boolean) => void };
  /** The tool call the task's run waits on for approval (`input-required`), decided at the agent's desk. */
  approval?: WaitingApproval;
  /** Set once the task's run waited saved (task-durable-wait.ts): its record in the store, and its questions. */
  durable?: DurableState;
}

/** What a task whose run waits saved keeps beside the task (task-durable-wait.ts). */
export interface DurableState {
  /** The run's id (the saved run's key). */
  runId: string;
  /** The run's instruction (the run history's record of it, when the task is rebuilt after a restart). */
  instruction: string;
  /** The questions of the run's current wait not yet answered over A2A, in the model's order. */
  pending: ApprovalRequest[];
  /** The questions answered over A2A here (their decision may not be at the desk yet: never raised again). */
  answered: Set<string>;
  /** The version of the task's record in the store, once written. */
  version?: number;
  /** The run was resumed by another replica, and its outcome read from the fleet's history: that replica records it. */
  recordedElsewhere?: boolean;
  /** Writes of the record, one after another. */
  writing?: Promise<void>;
}

/** Move a task's status (and tell its listeners). */
export type SetStatus = (e: Entry, state: TaskState, text?: string | Part[]) => void;

/** A task's events end its streams when the task reaches one of these states. */
export const endsStream = (s: TaskState) => TERMINAL_STATES.has(s) || INTERRUPTED_STATES.has(s);

/** The run's instruction: text parts as they are, data parts as JSON, files named. */
export function instructionOf(m: Message): string {
  return m.parts
    .map((p) =>
      p.text !== undefined
        ? p.text
        : p.data !== undefined
          ? JSON.stringify(p.data)
          : p.url
            ? `[file ${p.filename ?? p.url}: ${p.url}]`
            : p.raw
              ? `[attached file ${p.filename ?? ""} (${p.mediaType ?? "bytes"}) omitted]`
              : "",
    )
    .filter(Boolean)
    .join("\n");
}

/** Now, as the wire's timestamps say it. */
export const now = () => new Date().toISOString();

/** A state as a refusal names it (`input-required`). */
export const stateWord = (s: TaskState) => s.replace("TASK_STATE_", "").toLowerCase().replace("_", "-");
