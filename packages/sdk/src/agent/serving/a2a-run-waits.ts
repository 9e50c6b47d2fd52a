/**
 * The agent's side of A2A tasks whose runs wait saved (a2a/server/task-durable-wait.ts): the saved run's
 * state read from the waiting-run store, the task records kept in the same store, and a task following its
 * run here the way a served MCP caller does (AgentWaiting.untilResumed) — resumed here, the task hears its
 * events and result; resumed by another replica, the task is told so and reads the outcome from the store.
 */
import type { A2aRunWaits, FollowedRun } from "../../a2a/server/task-durable-wait.ts";
import type { RunResult } from "../../loop/run-loop.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { AgentWaiting } from "../run/run-waiting.ts";

/** The A2A tasks' view of the agent's waiting runs. */
export function a2aRunWaits(waiting: AgentWaiting): A2aRunWaits {
  return {
    replica: waiting.replica,
    get store() {
      return waiting.documents;
    },
    async saved(runId) {
      const held = await waiting.runs.get(runId);
      if (!held) return undefined;
      const { state, claimedBy, run } = held.document;
      return { state, claimedBy, pending: run.suspension.pending.map((p) => p.request) };
    },
    follow(runId, hooks): Promise<FollowedRun> {
      // untilResumed reads only the run id of the first part's result.
      const first = { runId } as RunResult;
      return waiting.untilResumed(first, { onEvent: hooks.onEvent, signal: hooks.signal, asks: hooks.asks }).then(
        (result) => ({ result }),
        (error: unknown) => (resumedElsewhere(error) ? { elsewhere: true } : { error }),
      );
    },
  };
}

/** untilResumed's word that another replica claimed the run (its result is in the run history there). */
const resumedElsewhere = (e: unknown): boolean =>
  AgentdError.isInstance(e) && e.code === "E_UPSTREAM" && /was resumed on another replica/.test(e.message);
