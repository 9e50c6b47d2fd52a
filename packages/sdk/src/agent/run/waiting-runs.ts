/**
 * The waiting-run store: the saved state of each run that stopped to wait for a person's decision, so a
 * restart, a crash or another replica can resume it when the decision arrives. One versioned JSON document a
 * run (`agentd.waiting-run`, version 2; version 1 documents are still read) under
 * `waiting-run/<hash of the run id>`, in the agent's durable store — the configured `durability.store` (a
 * directory or Redis behind an MCP store: every replica sees the same runs) — else the local state directory
 * (`$XDG_STATE_HOME/agentd/runs`).
 *
 * Exactly once: resuming claims the document by compare-and-set on its version (`waiting → resuming`), so of
 * two processes or replicas resuming one run only one wins; the other is told it is being resumed. The claim
 * is a lease: the claimer renews it while it resumes (resume-lease.ts), and a claim whose lease lapsed — its
 * process died — may be taken over by another claimer, again by compare-and-set. The document keeps the
 * decisions the first claim resumed with (a takeover applies those) and a journal of the approved calls of
 * the resumed turn: each recorded as started before it is made and with its outcome after, so a takeover
 * never makes a second time a call that may have been made (resume-lease.ts). A run resumed to its end leaves
 * a tombstone (`resumed`) for a week, so a second resume says so rather than "unknown"; one that waits again
 * is saved again under the same key. A version 1 document being resumed has no lease (an older agentd
 * claimed it, and may still be resuming it): it is never taken over. An older agentd does not read version 2
 * documents, so it never resumes a run it could not lease.
 */
import { sha256 } from "../../_internal/hash.ts";
import { homedir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type { ApprovalDecision } from "../../loop/approvals/approval-types.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { RunSuspension } from "../../loop/run-suspension.ts";
import type { ToolCallOutcome } from "../../loop/tools.ts";
import type { TraceCarrier } from "../../loop/trace-context.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { DocumentStore } from "../conversations/document-conversations.ts";
import type { ConversationMark } from "../conversations/conversation-writer.ts";

const FORMAT = "agentd.waiting-run";
/** The version written: 2 adds the lease, the decisions and the journal of calls; 1 is still read. */
const VERSION = 2;
const PREFIX = "waiting-run/";
/** How long a resumed run's tombstone says "already resumed". */
const TOMBSTONE_MS = 7 * 86_400_000;

/** How long a claim on a run being resumed holds unrenewed before another process may take the run over. */
export const RESUME_LEASE_MS = 30_000;
/** How often the process resuming a run renews its claim: two renewals may fail before the lease lapses. */
export const RESUME_RENEW_MS = 10_000;

/** The lease's durations (the defaults {@link RESUME_LEASE_MS} and {@link RESUME_RENEW_MS}). */
export interface ResumeLeaseTimes {
  leaseMs?: number;
  renewMs?: number;
}

/** Where waiting runs are kept without a configured store. */
export function localRunsDir(env: Record<string, string | undefined> = process.env): string {
  const state = env.XDG_STATE_HOME?.trim() || join(env.HOME?.trim() || homedir(), ".local", "state");
  return join(state, "agentd", "runs");
}

/** A run as saved while it waits (what resuming it needs besides the decisions). */
export interface WaitingRun {
  runId: string;
  /** Where it came from (`direct`, `mcp`, `a2a`, `trigger`, `subagent`) and its trigger, as the Run has it. */
  origin: { kind: string; trigger?: string; event?: { id: string; kind: string; firedAt: string } };
  principal?: string;
  /** Its trigger tag (`once`, a trigger's id). */
  trigger?: string;
  /** The instruction it was started with (for the run history; the model reads the saved messages). */
  input: string;
  limits?: RunLimits;
  outputSchema?: Record<string, unknown>;
  maxOutputRetries?: number;
  traceContext?: TraceCarrier;
  /** The conversation it continued, if any. */
  conversationId?: string;
  /** Where that conversation stood when the run stopped: the resumed part saves its turns after the first part's. */
  conversation?: ConversationMark;
  /** ISO 8601. */
  createdAt: string;
  /** The process that saved it (`AgentWaiting.replica`): where a served caller waits on it, if one does. */
  savedBy?: string;
  /** When its first question expires and the timeout's decision applies (ISO 8601), if questions expire. */
  expiresAt?: string;
  suspension: RunSuspension;
}

/** A saved run's state in the store. */
export type WaitingRunState = "waiting" | "resuming" | "resumed";

/** One approved call of the resumed turn in the journal: started (about to be made), then its outcome. */
export interface ResumedCall {
  /** When the resuming process recorded it was making the call (ISO 8601), and which process. */
  startedAt: string;
  by: string;
  /** What the call returned (secrets masked), once it did. */
  outcome?: ToolCallOutcome;
  /**
   * A call of a later turn (one that needed no decision): its tool and the digest of its arguments, which a
   * takeover — whose model, asked again from the saved turn, makes its own calls with new ids — matches its
   * calls against.
   */
  made?: { name: string; digest: string };
}

/** The document as stored. */
export interface WaitingRunDocument {
  format: typeof FORMAT;
  /** 2 as written; a version 1 document (no lease, no journal) is read too. */
  version: 1 | 2;
  state: WaitingRunState;
  run: WaitingRun;
  /** Who claimed it for resuming, and when (ISO 8601). */
  claimedBy?: string;
  claimedAt?: string;
  /** While resuming: when the claim lapses unless renewed (epoch ms). */
  leaseUntil?: number;
  /** While resuming: the decisions it resumes with, by request id (a takeover applies these). */
  decisions?: Record<string, ApprovalDecision>;
  /** While resuming: the journal of every call the claimer makes (the resumed turn's approved calls, then later turns'), by tool call id. */
  calls?: Record<string, ResumedCall>;
  /** A tombstone's end (epoch ms). */
  retainUntil?: number;
}

const DocumentSchema = v.looseObject({
  format: v.literal(FORMAT),
  version: v.picklist([1, 2]),
  state: v.picklist(["waiting", "resuming", "resumed"]),
  run: v.looseObject({
    runId: v.string(),
    input: v.string(),
    createdAt: v.string(),
    origin: v.looseObject({ kind: v.string() }),
    suspension: v.looseObject({
      messages: v.array(v.looseObject({ role: v.string() })),
      results: v.array(v.looseObject({})),
      pending: v.array(v.looseObject({ request: v.looseObject({ id: v.string() }), call: v.looseObject({ toolCallId: v.string() }) })),
    }),
  }),
});

/** A saved run with the version it was read at. */
export interface VersionedWaitingRun {
  document: WaitingRunDocument;
  version: number;
}

/** A claim won: the run, the document as claimed and its version, and whose lapsed claim it took over, if any. */
export interface WonClaim {
  ok: true;
  run: WaitingRun;
  document: WaitingRunDocument;
  version: number;
  takenOverFrom?: string;
}

/** What a claim found: won, or the run unknown, being resumed (by whom, until when) or resumed. */
export type WaitingClaim = WonClaim | { ok: false; state: "unknown" | "resuming" | "resumed"; by?: string; leaseUntil?: number };

/** The store key of a run (run ids may hold any character: their hash). */
const keyOf = (runId: string): string => `${PREFIX}${sha256(runId, "hex").slice(0, 40)}`;

/** See the module header. */
export class WaitingRuns {
  constructor(
    private readonly store: () => Promise<DocumentStore>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The saved run, any state; undefined when none (or its tombstone expired). */
  async get(runId: string): Promise<VersionedWaitingRun | undefined> {
    const stored = await (await this.store()).get(keyOf(runId));
    const document = stored && this.parse(stored.value);
    if (!stored || !document || document.run.runId !== runId) return undefined;
    if (document.state === "resumed" && (document.retainUntil ?? 0) <= this.now()) return undefined;
    return { document, version: stored.version };
  }

  /**
   * Save a run that waits: a new one (refused while another run under this id waits or resumes), or the
   * one it resumed from waiting again (`expectedVersion`: its claim's).
   */
  async save(run: WaitingRun, expectedVersion?: number): Promise<number> {
    const store = await this.store();
    const key = keyOf(run.runId);
    let expected = expectedVersion;
    if (expected === undefined) {
      const held = await this.get(run.runId);
      if (held && held.document.state !== "resumed")
        throw new AgentdError("E_USAGE", `run ${run.runId} already waits for a decision: resume it, or start the run under a new id`);
      expected = (await store.get(key))?.version ?? 0;
    }
    const r = await store.compareAndSet(key, expected, this.waitingDocument(run));
    if (!r.ok) throw new AgentdError("E_STORE", `run ${run.runId} could not be saved as waiting: its document changed meanwhile`);
    return r.version;
  }

  /** Whether a claim on `document` lapsed: it is being resumed, its lease is over (a version 1 claim never lapses). */
  lapsed(document: WaitingRunDocument): boolean {
    return document.state === "resuming" && document.leaseUntil !== undefined && document.leaseUntil <= this.now();
  }

  /**
   * Claim a waiting run for resuming with `decisions`, or take over one whose claim lapsed (keeping the
   * first claim's decisions and journal), leased for `leaseMs`: a compare-and-set, so one claimer wins
   * across processes and replicas.
   */
  async claim(
    runId: string,
    by: string,
    decisions: Record<string, ApprovalDecision> = {},
    leaseMs = RESUME_LEASE_MS,
  ): Promise<WaitingClaim> {
    const held = await this.get(runId);
    if (!held) return { ok: false, state: "unknown" };
    const was = held.document;
    const takeover = this.lapsed(was);
    if (was.state !== "waiting" && !takeover) return { ok: false, state: was.state, by: was.claimedBy, leaseUntil: was.leaseUntil };
    const now = this.now();
    const claimed: WaitingRunDocument = {
      ...was,
      version: VERSION,
      state: "resuming",
      claimedBy: by,
      claimedAt: new Date(now).toISOString(),
      leaseUntil: now + leaseMs,
      decisions: takeover ? (was.decisions ?? decisions) : decisions,
      calls: takeover ? (was.calls ?? {}) : {},
    };
    const r = await (await this.store()).compareAndSet(keyOf(runId), held.version, claimed);
    if (!r.ok) return { ok: false, state: "resuming" };
    return {
      ok: true,
      run: was.run,
      document: claimed,
      version: r.version,
      ...(takeover ? { takenOverFrom: was.claimedBy ?? "unknown" } : {}),
    };
  }

  /** Write `document` over the run's at `expectedVersion` (the lease's writes); the new version, or undefined when it changed meanwhile. */
  async replace(runId: string, expectedVersion: number, document: WaitingRunDocument): Promise<number | undefined> {
    const r = await (await this.store()).compareAndSet(keyOf(runId), expectedVersion, document);
    return r.ok ? r.version : undefined;
  }

  /** The document a claimed run resumed to its end leaves: its tombstone, kept a week. */
  tombstone(document: WaitingRunDocument): WaitingRunDocument {
    return {
      format: FORMAT,
      version: VERSION,
      state: "resumed",
      run: document.run,
      claimedBy: document.claimedBy,
      claimedAt: document.claimedAt,
      retainUntil: this.now() + TOMBSTONE_MS,
    };
  }

  /** The document of a run that waits (again). */
  waitingDocument(run: WaitingRun): WaitingRunDocument {
    return { format: FORMAT, version: VERSION, state: "waiting", run };
  }

  /** A claimed run resumed to its end: its tombstone (kept a week) replaces it. */
  async finish(runId: string, claimVersion: number): Promise<void> {
    const held = await this.get(runId);
    if (!held || held.version !== claimVersion) return;
    await (await this.store()).compareAndSet(keyOf(runId), claimVersion, this.tombstone(held.document));
  }

  /** The runs being resumed now, with when their claims lapse (a version 1 claim: never). */
  async resuming(): Promise<Array<{ runId: string; leaseUntil?: number }>> {
    return (await this.scan()).filter((d) => d.state === "resuming").map((d) => ({ runId: d.run.runId, leaseUntil: d.leaseUntil }));
  }

  /** The runs waiting now (oldest first); expired tombstones found on the way are deleted. */
  async waiting(): Promise<WaitingRun[]> {
    const out = (await this.scan()).filter((d) => d.state === "waiting").map((d) => d.run);
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  /** Every saved run's document, expired tombstones deleted on the way. */
  private async scan(): Promise<WaitingRunDocument[]> {
    const store = await this.store();
    const out: WaitingRunDocument[] = [];
    for (const listed of await store.list(PREFIX)) {
      const stored = await store.get(listed.key);
      const document = stored && this.parse(stored.value);
      if (!stored || !document) continue;
      if (document.state === "resumed" && (document.retainUntil ?? 0) <= this.now()) await store.delete(listed.key, stored.version);
      else out.push(document);
    }
    return out;
  }

  private parse(value: unknown): WaitingRunDocument | undefined {
    return v.safeParse(DocumentSchema, value).success ? (value as WaitingRunDocument) : undefined;
  }
}
