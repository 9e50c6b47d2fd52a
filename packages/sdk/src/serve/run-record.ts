/**
 * The shapes of the run history: one run as the outside sees it (its record, where it came from, the tool in
 * flight), what `agent://status` reports, and the bounds the registry keeps (run-registry.ts keeps them).
 */
import type { Usage } from "../model/language-model.ts";
import type { RunDetail } from "./run-detail.ts";
import type { SharedRunHistory } from "./shared-run-history.ts";
import type { RunApproval } from "./approvals/run-approval-history.ts";

/** Whether a record is the run's end (succeeded or failed): not running, and not waiting for a decision to go on. */
export function runEnded(record: Pick<RunRecord, "status">): boolean {
  return record.status === "succeeded" || record.status === "failed";
}

/** One run as the outside sees it. */
export interface RunRecord {
  runId: string;
  /** `waiting`: stopped for a person's decision on a tool call (its questions in `approvals`), saved, to be resumed. */
  status: "running" | "waiting" | "succeeded" | "failed";
  instruction: string;
  startedAt: string;
  endedAt?: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  /** Present when succeeded. */
  result?: { text?: string; output?: unknown; stopReason: string };
  /** Present when failed: the error code and message. */
  error?: { code: string; message: string };
  /** While running: the tool call in flight, and the last progress it reported (if any). */
  tool?: ToolInFlight;
  /** How the run was started: over MCP (`agent.run`), as an A2A task, by a configured trigger, or from the console. */
  via?: RunVia;
  /** The id of the trigger that started it (when `via` is `trigger`). */
  trigger?: string;
  /** What it did, turn by turn (bounded; see `run-detail.ts`). Present once the run emitted an event. */
  detail?: RunDetail;
  /** The replica that ran it, when finished runs are shared through a store (`shared-run-history.ts`). */
  replica?: string;
  /** The conversation it continued (`agent://conversations/{id}` lists its runs), when it named one. */
  conversationId?: string;
  /** The tool calls that waited for approval, each with its decision: who, when, what, why (bounded). */
  approvals?: RunApproval[];
}

/** How a run was started (`console`: by an operator from the console's page). */
export type RunVia = "mcp" | "a2a" | "trigger" | "console";

/** What {@link RunRegistry.start} may note about a run's start. */
export interface RunStartInfo {
  via?: RunVia;
  trigger?: string;
  /** The conversation the run continues, when it names one. */
  conversationId?: string;
}

/** A run started or finished (or left the history): what `agent://runs` subscribers are told of. */
export interface RunListChange {
  runId: string;
  owner: string;
  /** The record, or undefined when it left the bounded history. */
  record: RunRecord | undefined;
}

/** The tool a running run is waiting on, as `agent://runs/{runId}` shows it. */
export interface ToolInFlight {
  name: string;
  toolCallId: string;
  progress?: number;
  total?: number;
  message?: string;
  /** Since the call started. */
  elapsedMs?: number;
}

/** The agent as a whole, or one principal's share of it. */
export interface AgentStatus {
  state: "idle" | "running";
  running: string[];
  /** Runs stopped for a person's decision, saved until they are resumed (neither running nor finished). */
  waiting?: string[];
  runsStarted: number;
  runsSucceeded: number;
  runsFailed: number;
  usage: Usage;
  /** Spend of the finished runs in US dollars, when model prices are configured (`model.prices`): absent without. */
  costUsd?: number;
  startedAt: string;
}

/** Bounds of the run history: per principal, inside one bound for the whole agent. */
export interface RunHistoryLimits {
  /** Finished runs kept per principal. Default 100. */
  maxRuns?: number;
  /** Bytes of finished runs kept per principal (instruction, answer, error). Default 16 MiB. */
  maxBytes?: number;
  /**
   * Bytes of finished runs kept for all principals together. Default 64 MiB. Past it, the principal holding the
   * most gives up its oldest finished run, so a principal within its fair share is never the one to lose.
   */
  maxTotalBytes?: number;
  /**
   * Where every finished run is also written, so each replica sharing it lists the runs of all (the fleet's
   * history, `shared-run-history.ts`). Absent: this replica's runs only.
   */
  shared?: SharedRunHistory;
}
