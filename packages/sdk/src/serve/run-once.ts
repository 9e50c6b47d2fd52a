/**
 * The run-once protocol of a served run, in one place for both served surfaces (MCP `agent.run` and A2A
 * tasks): claim the run's key across replicas (served-runs.ts), run it once, record the answer in the
 * store and the run history, and finish the claim — releasing it (no answer) when the run failed, so a
 * retry runs it again. What each surface says to its caller about a claim it did not get (another replica
 * ran it, is running it, the store is down) stays with the surface; the steps and their order are here.
 */
import { scrubSecrets } from "../log.ts";
import type { RunResult } from "../loop/run-loop.ts";
import type { Usage } from "../model/language-model.ts";
import { AgentdError } from "../wire/errors.ts";
import type { RunRegistry } from "./run-registry.ts";
import type { ServedRunAnswer, ServedRuns } from "./served-runs.ts";

/** What claiming a served run found. */
export type ServedClaim =
  /** This replica runs it: `run` runs it once under `signal` (the caller's, aborted too when the claim is lost). */
  | { status: "run"; signal: AbortSignal; run<T extends RunResult>(start: (signal: AbortSignal) => Promise<T>): Promise<T> }
  /** Another replica ran it: its answer, or undefined when its record is gone from the store. */
  | { status: "done"; answer: ServedRunAnswer | undefined }
  /** Another replica is running it (it did not finish within the wait). */
  | { status: "running"; holder?: string }
  /** The store that keeps served runs once could not be reached: the run was not started. */
  | { status: "unavailable"; message: string };

/** Options of {@link claimServedRun}. */
export interface ClaimOptions {
  /** How long to wait while another replica runs it (default: the store's bound; Infinity: until it ends or `signal` aborts). */
  waitMs?: number;
  /** Stop the run when another replica takes the claim over (this one missed its renewals). */
  stopOnLostClaim?: boolean;
}

/** The answer kept for a run that finished. */
const answerOf = (r: RunResult): ServedRunAnswer => ({ stopReason: r.stopReason, text: r.text, output: r.output });

/**
 * Claim `key` (a principal-scoped run id) in `servedRuns`; without a store every claim is this replica's.
 * See {@link ServedClaim}.
 */
export async function claimServedRun(
  servedRuns: ServedRuns | undefined,
  key: string,
  signal: AbortSignal,
  options: ClaimOptions = {},
): Promise<ServedClaim> {
  if (!servedRuns) return { status: "run", signal, run: (start) => start(signal) };
  let claim: Awaited<ReturnType<ServedRuns["begin"]>>;
  try {
    claim = await servedRuns.begin(key, signal, options.waitMs !== undefined ? { waitMs: options.waitMs } : undefined);
  } catch (e) {
    return { status: "unavailable", message: scrubSecrets(e instanceof Error ? e.message : String(e)) };
  }
  if (claim.status === "done") return { status: "done", answer: claim.answer };
  if (claim.status === "running") return { status: "running", holder: claim.holder };
  const held = claim;
  const runSignal = options.stopOnLostClaim && held.lost ? AbortSignal.any([signal, held.lost]) : signal;
  return {
    status: "run",
    signal: runSignal,
    async run(start) {
      const result = await start(runSignal).catch(async (e: unknown) => {
        // A failed run releases its id: a retry runs it again.
        await held.finish(undefined).catch(() => {});
        throw e;
      });
      // The answer is in the store before the claim is marked done (served-runs.ts); a failed write is the store's to retry.
      await held.finish(answerOf(result)).catch(() => {});
      return result;
    },
  };
}

/** A finished run as the run history records it (an answer from another replica has its own stop reason). */
export type FinishedRun = Pick<RunResult, "usage" | "turns" | "toolCalls" | "text" | "output" | "conversationId"> & { stopReason: string };

/** A finished run's record in the run history. */
export function recordSucceeded(registry: RunRegistry, runId: string, result: FinishedRun, owner?: string): void {
  registry.succeed(
    runId,
    {
      stopReason: result.stopReason,
      usage: result.usage,
      turns: result.turns,
      toolCalls: result.toolCalls,
      text: result.text,
      output: result.output,
      conversationId: result.conversationId,
    },
    owner,
  );
}

/** What a failed run tells its caller: the code, the message scrubbed of secrets, and the usage it had. */
export function failureOf(e: unknown): { code: string; message: string; usage: Usage | undefined } {
  const code = AgentdError.isInstance(e) ? e.code : "E_RUN_FAILED";
  // An upstream's error text can echo a value from the environment (a header): never hand it to a caller.
  const message = scrubSecrets(e instanceof Error ? e.message : String(e));
  const usage = AgentdError.isInstance(e) ? (e.options.data?.usage as Usage | undefined) : undefined;
  return { code, message, usage };
}

/** The record of an answer another replica gave (it made no turns here). */
export function answeredElsewhere(answer: ServedRunAnswer): FinishedRun {
  return {
    stopReason: "already done",
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    turns: 0,
    toolCalls: 0,
    text: answer.text,
    output: answer.output,
  };
}
