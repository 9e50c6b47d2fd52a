/**
 * The waiting-run store: the saved state of each run that stopped to wait for a person's decision, so a
 * restart, a crash or another replica can resume it when the decision arrives. One versioned JSON document a
 * run (`agentd.waiting-run`, version 1) under `waiting-run/<hash of the run id>`, in the agent's durable
 * store — the configured `durability.store` (a directory or Redis behind an MCP store: every replica sees
 * the same runs) — else the local state directory (`$XDG_STATE_HOME/agentd/runs`).
 *
 * Exactly once: resuming claims the document by compare-and-set on its version (`waiting → resuming`), so of
 * two processes or replicas resuming one run only one wins; the other is told it was already resumed. A run
 * resumed to its end leaves a tombstone (`resumed`) for a week, so a second resume says so rather than
 * "unknown"; one that waits again is saved again under the same key. A process that dies while resuming
 * leaves the document `resuming`: the run is not resumed a second time (a tool call may have been made).
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type { RunLimits } from "../../loop/budget.ts";
import type { RunSuspension } from "../../loop/run-suspension.ts";
import type { TraceCarrier } from "../../loop/trace-context.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { DocumentStore } from "../conversations/document-conversations.ts";

const FORMAT = "agentd.waiting-run";
const PREFIX = "waiting-run/";
/** How long a resumed run's tombstone says "already resumed". */
const TOMBSTONE_MS = 7 * 86_400_000;

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
  /** The conversation it continued, if any (its turns after the wait are not added to it). */
  conversationId?: string;
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

/** The document as stored. */
export interface WaitingRunDocument {
  format: typeof FORMAT;
  version: 1;
  state: WaitingRunState;
  run: WaitingRun;
  /** Who claimed it for resuming, and when (ISO 8601). */
  claimedBy?: string;
  claimedAt?: string;
  /** A tombstone's end (epoch ms). */
  retainUntil?: number;
}

const DocumentSchema = v.looseObject({
  format: v.literal(FORMAT),
  version: v.literal(1),
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

/** What a claim found. */
export type WaitingClaim = { ok: true; run: WaitingRun; version: number } | { ok: false; state: "unknown" | "resuming" | "resumed" };

/** The store key of a run (run ids may hold any character: their hash). */
const keyOf = (runId: string): string => `${PREFIX}${createHash("sha256").update(runId).digest("hex").slice(0, 40)}`;

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
    const document: WaitingRunDocument = { format: FORMAT, version: 1, state: "waiting", run };
    const r = await store.compareAndSet(key, expected, document);
    if (!r.ok) throw new AgentdError("E_STORE", `run ${run.runId} could not be saved as waiting: its document changed meanwhile`);
    return r.version;
  }

  /** Claim a waiting run for resuming (compare-and-set: one claimer wins across processes and replicas). */
  async claim(runId: string, by: string): Promise<WaitingClaim> {
    const held = await this.get(runId);
    if (!held) return { ok: false, state: "unknown" };
    if (held.document.state !== "waiting") return { ok: false, state: held.document.state };
    const claimed: WaitingRunDocument = {
      ...held.document,
      state: "resuming",
      claimedBy: by,
      claimedAt: new Date(this.now()).toISOString(),
    };
    const r = await (await this.store()).compareAndSet(keyOf(runId), held.version, claimed);
    if (!r.ok) return { ok: false, state: "resuming" };
    return { ok: true, run: held.document.run, version: r.version };
  }

  /** A claimed run resumed to its end: its tombstone (kept a week) replaces it. */
  async finish(runId: string, claimVersion: number): Promise<void> {
    const held = await this.get(runId);
    if (!held || held.version !== claimVersion) return;
    const tombstone: WaitingRunDocument = { ...held.document, state: "resumed", retainUntil: this.now() + TOMBSTONE_MS };
    await (await this.store()).compareAndSet(keyOf(runId), claimVersion, tombstone);
  }

  /** The runs waiting now (oldest first); expired tombstones found on the way are deleted. */
  async waiting(): Promise<WaitingRun[]> {
    const store = await this.store();
    const out: WaitingRun[] = [];
    for (const listed of await store.list(PREFIX)) {
      const stored = await store.get(listed.key);
      const document = stored && this.parse(stored.value);
      if (!stored || !document) continue;
      if (document.state === "waiting") out.push(document.run);
      else if (document.state === "resumed" && (document.retainUntil ?? 0) <= this.now()) await store.delete(listed.key, stored.version);
    }
    return out.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
  }

  private parse(value: unknown): WaitingRunDocument | undefined {
    return v.safeParse(DocumentSchema, value).success ? (value as WaitingRunDocument) : undefined;
  }
}
