/**
 * A served MCP run that waited for a decision and was resumed by another replica (the decision was heard
 * there first, or this replica was slow to claim it): its caller, still connected here, gets the run's
 * answer from the fleet's shared run history, where the resuming replica records it — not an error telling
 * it to look there. This replica records nothing of its own for the run (the resumer's record is the one),
 * and finishes its run-once claim with that answer, so a retry under the same id answers it rather than
 * running the instruction again.
 */
import type { RunResult } from "../loop/run-loop.ts";
import { AgentdError } from "../wire/errors.ts";
import { type RunRecord, runEnded } from "./run-record.ts";
import type { RunRegistry } from "./run-registry.ts";

/** How long the resumer may take to write the run's end to the shared history. */
const HISTORY_WAIT_MS = 60_000;
const FIRST_LOOK_MS = 50;
const LONGEST_LOOK_MS = 2_000;

/** Whether `e` says the run was resumed by another replica (agent/run/run-waiting.ts marks it so). */
export function resumedElsewhere(e: unknown): boolean {
  return AgentdError.isInstance(e) && e.options.data?.resumedElsewhere !== undefined;
}

/**
 * The answer of `owner`'s run `runId`, resumed elsewhere, from the shared history once its end is written
 * there; undefined when there is no shared history (the caller keeps the one line naming the other replica).
 * A run that failed there rejects with its failure; one whose end does not appear in time rejects with `e`.
 */
export async function answerResumedElsewhere(
  registry: RunRegistry,
  runId: string,
  owner: string,
  e: unknown,
  signal: AbortSignal,
): Promise<RunResult | undefined> {
  const shared = registry.shared;
  if (!shared || !resumedElsewhere(e)) return undefined;
  const until = Date.now() + HISTORY_WAIT_MS;
  for (let pause = FIRST_LOOK_MS; ; pause = Math.min(pause * 2, LONGEST_LOOK_MS)) {
    const record = (await shared.read(runId, owner))?.record;
    if (record && runEnded(record)) return resultOfEndedRecord(record, runId);
    if (Date.now() + pause > until) throw e;
    await sleep(pause, signal);
  }
}

/** The result a run's ended record stands for: its answer, or (failed) its failure thrown. */
export function resultOfEndedRecord(record: RunRecord, runId: string): RunResult {
  if (record.status === "failed")
    throw new AgentdError((record.error?.code ?? "E_UPSTREAM") as "E_UPSTREAM", record.error?.message ?? "the run failed");
  return {
    status: "finished",
    runId,
    text: record.result?.text,
    output: record.result?.output,
    stopReason: "final",
    usage: record.usage,
    turns: record.turns,
    toolCalls: record.toolCalls,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      if (signal.aborted) reject(signal.reason);
      else resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
