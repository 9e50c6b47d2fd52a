/**
 * The run function a trigger router calls: one agentic run per event, with the event's stable run id
 * (sent in `_meta` of every tools/call) and the router's AbortSignal (aborts the model request and
 * cancels in-flight tool calls with `notifications/cancelled`).
 *
 * Idempotency, "already done → exit 0 cheaply", has two documented paths:
 * 1. In process: the run ids of runs that succeeded are remembered (a bounded set). An event whose run id
 *    is in it is answered `already-done` without calling the model. Because a subscription run id names a
 *    resource STATE, a resource that flips A → B → A within one process does not re-run A.
 * 2. Across processes (a restart re-delivers the current state under the same run id; a CronJob retries
 *    with the same `RUN_ID`): the tools see the run id and can tell the model the work is done; a final
 *    answer that is exactly {@link ALREADY_DONE} (trimmed) makes the run `already-done`: exit 0, nothing
 *    on stdout.
 */
import type { RunResult } from "../../loop/run-loop.ts";
import type { Usage } from "../../model/language-model.ts";
import type { RunFunction, RunOutcome, SubscribableClient } from "../index.ts";
import type { ClaimOutcome } from "../../store/run-claims.ts";
import { AgentdError } from "../../wire/errors.ts";

/** The final answer that means "this run's work was already done". */
export const ALREADY_DONE = "ALREADY_DONE";

/** Whether a run's final answer is the {@link ALREADY_DONE} sentinel. */
export const isAlreadyDone = (result: Pick<RunResult, "text" | "output">): boolean =>
  result.output === undefined && result.text?.trim() === ALREADY_DONE;

/** What a trigger run needs from an agent (`Agent` from createAgent satisfies it). */
export interface TriggerAgent {
  connect(): Promise<void>;
  run(
    input: string,
    options: {
      runId: string;
      signal: AbortSignal;
      triggerEvent?: { id: string; kind: string; firedAt: Date };
      /** The conversation the run continues (the trigger's `conversation`). */
      conversation?: string;
    },
  ): Promise<RunResult>;
  /** The connected MCP clients by server name (managed clients: they reconnect and re-subscribe). */
  readonly clients: ReadonlyMap<string, SubscribableClient>;
}

/** What {@link createTriggerRunner} puts in `RunOutcome.data` (a type alias: it must fit `Record<string, unknown>`). */
export type TriggerRunData = {
  /** The run's result when it reached a final answer. */
  result?: RunResult;
  usage?: Usage;
  stopReason?: string;
  /** The error code when it did not (`E_BUDGET_TURNS`, `E_UPSTREAM`, `E_ABORTED` …). */
  code?: string;
  /** The error itself, for the caller's exit code. Never logged whole. */
  error?: unknown;
  /** True when the in-process done set answered, without a model call. */
  remembered?: boolean;
  /** True when the run id's claim in the store said another replica already ran it. */
  claimedElsewhere?: boolean;
};

/** Options of {@link createTriggerRunner}. */
export interface TriggerRunnerOptions {
  agent: TriggerAgent;
  /** How many succeeded run ids to remember (default 10 000; the oldest are forgotten first). */
  maxRemembered?: number;
  /** Called just before the agent runs (e.g. to tag telemetry with the trigger). */
  onRunStart?: (runId: string, triggerId: string, instruction: string) => void;
  /** Called when the run settled, before the router reports `run-end`. */
  onRunSettled?: (runId: string, triggerId: string) => void;
  /** Claim each run id in a store before running it (runs claimed once across replicas; `RunClaims`). */
  claims?: { acquire(runId: string, signal: AbortSignal): Promise<ClaimOutcome>; close?(): Promise<void> };
  /** Called before running a run id whose claim was taken over from a dead holder (to resume from its checkpoint). */
  onTakeover?: (runId: string, previousHolder: string) => Promise<void>;
}

/** A {@link RunFunction} with the in-process done set it keeps. */
export interface TriggerRunner {
  run: RunFunction;
  /** Run ids that succeeded in this process (insertion order). */
  readonly done: ReadonlySet<string>;
}

/** Build the run function for an agent's triggers. See the module header. */
export function createTriggerRunner(options: TriggerRunnerOptions): TriggerRunner {
  const max = options.maxRemembered ?? 10_000;
  const done = new Set<string>();
  const remember = (runId: string) => {
    done.delete(runId);
    done.add(runId);
    if (done.size > max) done.delete(done.values().next().value as string);
  };

  const run: RunFunction = async (event, signal, { triggerId, instruction, conversation }): Promise<RunOutcome> => {
    if (done.has(event.runId))
      return {
        status: "already-done",
        message: "this run id already succeeded in this process",
        data: { remembered: true } satisfies TriggerRunData,
      };
    // Claimed before the run starts; a replica that finds the claim held waits for its lease.
    let claimed: ClaimOutcome | undefined;
    try {
      claimed = options.claims ? await options.claims.acquire(event.runId, signal) : undefined;
    } catch (error) {
      // The store is unreachable: the run is not started (another replica, or a redelivery, may run it).
      const message = `cannot claim the run in the store: ${error instanceof Error ? error.message : String(error)}`;
      return {
        status: "failed",
        message,
        data: { code: AgentdError.isInstance(error) ? error.code : "E_UPSTREAM", error } satisfies TriggerRunData,
      };
    }
    if (claimed?.status === "done")
      return {
        status: "already-done",
        message: "another replica already ran this run id",
        data: { claimedElsewhere: true } satisfies TriggerRunData,
      };
    if (claimed?.status === "aborted")
      return {
        status: "aborted",
        message: "stopped while waiting for the run's claim",
        data: { code: "E_ABORTED" } satisfies TriggerRunData,
      };
    const claim = claimed?.claim;
    // Never fails the run: without the dead holder's checkpoint the run is rebuilt from scratch.
    if (claim?.previousHolder !== undefined) await options.onTakeover?.(event.runId, claim.previousHolder).catch(() => {});
    const runSignal = claim ? AbortSignal.any([signal, claim.lost]) : signal;
    let succeeded = false;
    options.onRunStart?.(event.runId, triggerId, instruction);
    try {
      const triggerEvent = { id: event.triggerId, kind: event.kind, firedAt: event.at }; // for telemetry (trigger lag)
      const result = await options.agent.run(instruction, {
        runId: event.runId,
        signal: runSignal,
        triggerEvent,
        ...(conversation ? { conversation } : {}),
      });
      succeeded = true;
      remember(event.runId);
      const data: TriggerRunData = { result, usage: result.usage, stopReason: result.stopReason };
      return isAlreadyDone(result)
        ? { status: "already-done", message: "the run reported its work already done", data }
        : { status: "ok", data };
    } catch (error) {
      const code = AgentdError.isInstance(error) ? error.code : "E_RUN_FAILED";
      const usage = AgentdError.isInstance(error) ? (error.options.data?.usage as Usage | undefined) : undefined;
      const data: TriggerRunData = { code, error, usage };
      const message = error instanceof Error ? error.message : String(error);
      return { status: runSignal.aborted ? "aborted" : "failed", message, data };
    } finally {
      await claim?.end(succeeded).catch(() => {}); // an unreleased claim expires with its lease
      options.onRunSettled?.(event.runId, triggerId);
    }
  };
  return { run, done };
}
