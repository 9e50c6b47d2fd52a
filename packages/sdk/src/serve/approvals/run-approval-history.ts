/**
 * A run's approvals in its history record (`agent://runs/{runId}`, the console's run page): each question
 * its tool calls waited on — the request id, the tool and the argument digest, when it was asked — and its
 * decision: what, who gave it, why, when, and how long the run waited. Folded from the run's own
 * `approval-requested` / `approval-decided` events, so every channel's decision is recorded alike.
 */
import type { RunEvent } from "../../loop/events.ts";

/** One question of a run and, once given, its decision. */
export interface RunApproval {
  requestId: string;
  toolCallId: string;
  /** The qualified tool name (`server/tool`). */
  tool: string;
  /** SHA-256 of the call's arguments in canonical JSON: the decision answers only this call. */
  digest: string;
  /** The rule that asked, in one line. */
  rule: string;
  requestedAt: string;
  decision?: "approve" | "deny" | "always";
  /** Who decided: a principal (`bearer:operator#0`), `timeout`, `run-ended`, `nobody`, the terminal. */
  by?: string;
  reason?: string;
  decidedAt?: string;
  waitedMs?: number;
}

/** At most this many questions are kept a run (the first ones: a run asking more is summarised by its count). */
export const MAX_RUN_APPROVALS = 50;

/** Fold an approval event into a run's list (created on the first question); other events leave it alone. */
export function foldApproval(
  list: RunApproval[] | undefined,
  event: RunEvent,
  now = () => new Date().toISOString(),
): RunApproval[] | undefined {
  if (event.type === "approval-requested") {
    const out = list ?? [];
    if (out.length < MAX_RUN_APPROVALS)
      out.push({
        requestId: event.requestId,
        toolCallId: event.toolCallId,
        tool: event.qualifiedName,
        digest: event.digest,
        rule: event.rule,
        requestedAt: now(),
      });
    return out;
  }
  if (event.type !== "approval-decided") return list;
  const entry = list?.find((a) => a.requestId === event.requestId);
  if (entry)
    Object.assign(entry, {
      decision: event.decision,
      by: event.by,
      ...(event.reason ? { reason: event.reason } : {}),
      decidedAt: now(),
      waitedMs: event.waitedMs,
    });
  return list;
}
