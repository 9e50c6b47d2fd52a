/**
 * Served runs run once across replicas. A served run id (`agent.run`'s `runId`, an A2A message's
 * `messageId`, both scoped to the caller's principal) is claimed in a shared store before the run starts;
 * its answer is written there as a result record before the claim is marked done. A caller reaching
 * another replica with the same id gets that answer, or — while the first replica still runs it — waits
 * for it, bounded; a holder that died has its claim taken over and the run is run again there — from its
 * saved conversation when `durability.checkpoint.resumeConversations` is on (the same run id resumes).
 * The store side is built in the agent layer (agent/served-runs-from-config.ts); this is what serving needs.
 */

/** The answer of a served run, as the result record keeps it. */
export interface ServedRunAnswer {
  stopReason: string;
  text?: string;
  output?: unknown;
}

/** What {@link ServedRuns.begin} found. */
export type ServedRunStart =
  /** This replica runs it: call `finish` with the answer (or undefined when the run failed, releasing the id). */
  | {
      status: "run";
      takenOver: boolean;
      /** Aborts when another replica took the claim over (this one missed its renewals): the run must stop. */
      lost?: AbortSignal;
      finish(answer: ServedRunAnswer | undefined): Promise<void>;
    }
  /** Another replica ran it: its answer (undefined when its record is gone). */
  | { status: "done"; answer?: ServedRunAnswer }
  /** Another replica is running it and did not finish within the wait. */
  | { status: "running"; holder?: string };

/** Run-once across replicas for served runs; see the module header. */
export interface ServedRuns {
  /**
   * Claim `key` (a principal-scoped run id), waiting while another replica (or this one) runs it: up to the
   * configured bound, or `waitMs` (Infinity: until it ends or `signal` aborts — an A2A task the caller polls).
   */
  begin(key: string, signal: AbortSignal, options?: { waitMs?: number }): Promise<ServedRunStart>;
}
