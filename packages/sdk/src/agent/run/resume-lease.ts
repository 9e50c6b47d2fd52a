/**
 * The claim a process holds on a saved run while it resumes it, as a lease: renewed every `renewMs` while the
 * run goes on, so that when the process dies (a `kill -9`, a lost node) the claim lapses after `leaseMs` and
 * another process may take the run over (waiting-runs.ts) instead of leaving it `resuming` forever.
 *
 * Every write of the claimer is a compare-and-set on the version it last wrote: a renewal, each entry of the
 * journal of approved calls, the run saved waiting again, its tombstone. A write that finds the document
 * changed means another process took the run over: the lease is lost, the run here is stopped (`onLost`),
 * and no further call is made. So whichever process holds the document makes the calls, and a takeover
 * reads in the journal what its predecessor did:
 *
 * - before any call is made — an approved call of the resumed turn, or a call of a later turn that needed no
 *   decision — the journal records it as started (a write that must win, so a lost lease stops the call);
 *   after, its outcome. A later turn's call is recorded with its tool and the digest of its arguments: a
 *   takeover's model, asked again from the saved turn, makes its calls anew, and a call of the same tool
 *   with the same arguments is matched to the journaled one (each journaled call answers one, in order);
 * - a takeover does not make again a call recorded as started without an outcome — the process died during
 *   it, and whether it took effect is unknown — the model reads a tool error saying so (at most once);
 * - a call recorded with its outcome is not made again: the model reads the recorded outcome;
 * - a call not started is made.
 *
 * A lease that cannot be renewed (the store unreachable) until it lapses is lost too: another process may
 * take the run over from then on. The lapse is judged on the clock of the process taking over against the
 * time the holder wrote: clocks that disagree by more than a lease cost a run stopped and taken over early,
 * never a call made twice (the journal's compare-and-set decides that).
 */
import type { PendingToolCall } from "../../loop/run-suspension.ts";
import type { ToolCallOutcome, ToolSet } from "../../loop/tools.ts";
import { argumentsDigest } from "../../loop/approvals/approval-policy.ts";
import { maskSecrets } from "../../secret-values.ts";
import { AgentdError } from "../../wire/errors.ts";
import {
  RESUME_LEASE_MS,
  RESUME_RENEW_MS,
  type ResumedCall,
  type ResumeLeaseTimes,
  type WaitingRun,
  type WaitingRunDocument,
  type WaitingRuns,
  type WonClaim,
} from "./waiting-runs.ts";

/** See the module header. */
export class ResumeLease {
  private document: WaitingRunDocument;
  private version: number;
  private tail: Promise<unknown> = Promise.resolve();
  private timer: ReturnType<typeof setInterval> | undefined;
  private lostBecause: string | undefined;
  private readonly leaseMs: number;
  private readonly renewMs: number;

  constructor(
    private readonly runs: WaitingRuns,
    private readonly claim: WonClaim,
    times: ResumeLeaseTimes,
    private readonly onLost: (reason: string) => void,
    private readonly now: () => number = Date.now,
  ) {
    this.document = claim.document;
    this.version = claim.version;
    this.leaseMs = times.leaseMs ?? RESUME_LEASE_MS;
    this.renewMs = times.renewMs ?? RESUME_RENEW_MS;
  }

  private get runId(): string {
    return this.claim.run.runId;
  }

  /** Renew every `renewMs` until the run ends, waits again, or the lease is lost. */
  start(): void {
    this.timer ??= setInterval(() => void this.renew(), this.renewMs);
    this.timer.unref?.();
  }

  /** Stop renewing (the run ended here; its last write is done or not needed). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Why the lease was lost, once it was. */
  get lost(): string | undefined {
    return this.lostBecause;
  }

  /**
   * Record that the call `toolCallId` is being made (`made`: a later turn's call, by tool and digest); rejects
   * (the call must not be made) when the lease is lost.
   */
  async started(toolCallId: string, made?: ResumedCall["made"]): Promise<void> {
    const ok = await this.write((d) => ({
      ...d,
      calls: {
        ...d.calls,
        [toolCallId]: { startedAt: new Date(this.now()).toISOString(), by: d.claimedBy ?? "unknown", ...(made ? { made } : {}) },
      },
    }));
    if (!ok) throw new AgentdError("E_ABORTED", this.lostBecause ?? `run ${this.runId} lost its claim`);
  }

  /** Record the outcome of the call `toolCallId` (a lost lease: the run is being stopped; nothing to record). */
  async made(toolCallId: string, outcome: ToolCallOutcome): Promise<void> {
    await this.write((d) => {
      const call = d.calls?.[toolCallId];
      return call ? { ...d, calls: { ...d.calls, [toolCallId]: { ...call, outcome: maskSecrets(outcome) } } } : d;
    });
  }

  /** The run waits again: saved waiting under its claim (E_STORE when another process took it over). */
  async saveWaiting(run: WaitingRun): Promise<void> {
    this.stop();
    if (!(await this.write(() => this.runs.waitingDocument(run), false)))
      throw new AgentdError("E_STORE", `run ${run.runId} could not be saved as waiting: ${this.lostBecause ?? "its document changed"}`);
  }

  /** The run ended here: its tombstone replaces it (unless the lease was lost). */
  async finish(): Promise<void> {
    this.stop();
    await this.write((d) => this.runs.tombstone(d), false);
  }

  private async renew(): Promise<void> {
    try {
      await this.write((d) => d);
    } catch (e) {
      // The store could not be reached: the claim holds until it lapses, then another process may take over.
      if ((this.document.leaseUntil ?? 0) <= this.now())
        this.lose(`run ${this.runId} lost its claim: it could not be renewed (${e instanceof Error ? e.message : String(e)})`);
    }
  }

  /**
   * Write `change` of the document (renewing the lease unless `renews` is false), after every earlier write:
   * false when the lease is (or just got) lost. A store failure rejects and leaves the lease as it was.
   */
  private write(change: (d: WaitingRunDocument) => WaitingRunDocument, renews = true): Promise<boolean> {
    const next = this.tail.then(async () => {
      if (this.lostBecause) return false;
      const changed = change(this.document);
      const document = renews ? { ...changed, leaseUntil: this.now() + this.leaseMs } : changed;
      const version = await this.runs.replace(this.runId, this.version, document);
      if (version === undefined) {
        this.lose(`run ${this.runId} was taken over by another process: its claim here lapsed`);
        return false;
      }
      this.document = document;
      this.version = version;
      return true;
    });
    this.tail = next.catch(() => {});
    return next;
  }

  private lose(reason: string): void {
    if (this.lostBecause) return;
    this.lostBecause = reason;
    this.stop();
    this.onLost(reason);
  }
}

/** What the model reads for a call whose process died during it (see the module header). */
export function unknownOutcome(name: string, call: { startedAt: string; by: string }, runId: string): string {
  return (
    `the call to "${name}" may or may not have been made: the process resuming run ${runId} (${call.by}) died during the call ` +
    `(started ${call.startedAt}), so whether it took effect is unknown. It was not made again; check its effect before calling it again.`
  );
}

/**
 * The tools of a resumed run, every call journaled through `lease` (see the module header): the approved
 * calls of its resumed turn by their ids; the calls of later turns by tool and arguments, since a takeover's
 * model, asked again from the saved turn, makes its calls anew (new ids). A takeover's call matching one its
 * predecessors journaled (the same tool and digest, each journaled call answering one call, in order) is not
 * made again: it gets the recorded outcome, or the "died during the call" error.
 */
export function journaledTools(tools: ToolSet, lease: ResumeLease, pending: readonly PendingToolCall[], claim: WonClaim): ToolSet {
  const unmade = new Set(pending.map((p) => p.call.toolCallId));
  const journal = claim.document.calls ?? {};
  // The later turns' calls of the claimers before this one, oldest first: each answers one matching call.
  const earlier = Object.entries(journal)
    .filter(([, c]) => c.made)
    .sort(([, a], [, b]) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  const recorded = (name: string, before: ResumedCall): ToolCallOutcome =>
    before.outcome ?? { isError: true, text: unknownOutcome(name, before, claim.run.runId) };
  const made = async (
    id: string,
    name: string,
    args: Parameters<ToolSet["call"]>[1],
    ctx: Parameters<ToolSet["call"]>[2],
    as?: ResumedCall["made"],
  ) => {
    await lease.started(id, as);
    const outcome = await tools.call(name, args, ctx);
    await lease.made(id, outcome).catch(() => {
      // Not recorded (the store failed): a takeover would read the call as started, and not make it again.
    });
    return outcome;
  };
  // A key of this claim's own: a takeover's model may reuse an id a predecessor's call had.
  const claimKey = crypto.randomUUID().slice(0, 8);
  let seq = 0;
  return {
    list: () => tools.list(),
    call: async (name, args, ctx) => {
      const id = ctx.toolCallId;
      if (id !== undefined && unmade.delete(id)) {
        const before = journal[id];
        return before ? recorded(name, before) : made(id, name, args, ctx);
      }
      const as = { name, digest: argumentsDigest(args) };
      const match = earlier.findIndex(([, c]) => c.made!.name === as.name && c.made!.digest === as.digest);
      if (match >= 0) return recorded(name, earlier.splice(match, 1)[0]![1]);
      return made(`${claimKey}#${++seq}:${id ?? "call"}`, name, args, ctx, as);
    },
  };
}
