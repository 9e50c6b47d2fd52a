/**
 * How the approval desk keeps one question in a versioned document store: one document a question under
 * `approval/<id>`, holding the {@link PendingApproval} and who may decide it; plus the rules every channel
 * applies alike — who may see a question (operators: all; anyone else: their own runs'), who may decide it
 * (operators always; the run's own principal only where the rule says `decidedBy: "owner"` or the run's
 * caller was asked itself), and the one line each refusal is.
 */
import type { ApprovalViewer, PendingApproval } from "../../loop/approvals/approval-desk.ts";
import { AgentdError } from "../../wire/errors.ts";

/**
 * What the desk needs of a store (the store's own shapes, restated: the served layer sits beside the store,
 * not above it): the document operations of a {@link StoreClient} (the configured MCP store,
 * a directory or Redis) or of the local state directory; `put` and `watch` when the store can tell other
 * processes of a change (a store server: Redis pub/sub across replicas).
 */
export interface ApprovalStore {
  get(key: string): Promise<{ key: string; version: number; value: unknown } | undefined>;
  /** Write only at `expectedVersion` (0: only if absent); a failure says what is there now. */
  compareAndSet(
    key: string,
    expectedVersion: number,
    value: unknown,
  ): Promise<{ ok: true; version: number } | { ok: false; version: number; value?: unknown }>;
  delete(key: string, expectedVersion?: number): Promise<boolean>;
  list(prefix: string): Promise<Array<{ key: string; version: number }>>;
  put?(key: string, value: unknown): Promise<number>;
  /** Hear every write of `key`; resolves to the unsubscribe. */
  watch?(key: string, onChange: (key: string) => void): Promise<() => Promise<void>>;
  /**
   * Hear every change of a key under `prefix`, by any process (a local directory no server fronts:
   * `LocalDocuments` watches the directory itself); resolves to the unsubscribe. Preferred over the bell.
   */
  watchKeys?(prefix: string, onChange: (key: string) => void): Promise<() => Promise<void>>;
}

/** Who may decide a question besides operators: nobody else, or the run's own principal. */
export type Deciders = "operator" | "owner";

/** One question as stored. */
export interface ApprovalDocument {
  format: "agentd.approval";
  version: 1;
  approval: PendingApproval;
  deciders: Deciders;
}

/** The key prefix of the questions. */
export const APPROVAL_PREFIX = "approval/";
/** The document every change is rung on, so other processes hear it (its value: the id changed last). */
export const APPROVAL_BELL = "approval-bell";

const ID = /^apr-[A-Za-z0-9-]{1,100}$/;

/** The store key of question `id`; a malformed id is refused as not existing (a user typed it). */
export function approvalKey(id: string): string {
  if (!ID.test(id)) throw noSuchApproval(id);
  return `${APPROVAL_PREFIX}${id}`;
}

/** `E_USAGE`: no question has this id (or it was decided long ago and is gone). */
export const noSuchApproval = (id: string) =>
  new AgentdError(
    "E_USAGE",
    `no approval ${id}: list the questions with \`agentd approvals list\` (decided ones are kept for a while, then removed)`,
  );

/** A stored value as a question, or undefined when it is not one of ours. */
export function parseApproval(value: unknown): ApprovalDocument | undefined {
  const d = value as Partial<ApprovalDocument> | undefined;
  if (d?.format !== "agentd.approval" || d.version !== 1 || typeof d.approval !== "object" || d.approval === null) return undefined;
  const a = d.approval as Partial<PendingApproval>;
  if (typeof a.request?.id !== "string" || (a.state !== "pending" && a.state !== "decided")) return undefined;
  return { format: d.format, version: 1, approval: d.approval, deciders: d.deciders === "owner" ? "owner" : "operator" };
}

/** Whether `viewer` may see the question: an operator every one, anyone else their own runs'. */
export function mayView(doc: ApprovalDocument, viewer: ApprovalViewer): boolean {
  return viewer.operator || (viewer.principal !== undefined && viewer.principal === doc.approval.principal);
}

/** Throw `E_UNAUTHORIZED` unless `viewer` may decide the question (see the module header). */
export function checkMayDecide(doc: ApprovalDocument, viewer: ApprovalViewer): void {
  if (viewer.operator) return;
  const own = viewer.principal !== undefined && viewer.principal === doc.approval.principal;
  if (own && doc.deciders === "owner") return;
  const id = doc.approval.request.id;
  throw new AgentdError(
    "E_UNAUTHORIZED",
    own
      ? `approval ${id} is decided by an operator (its rule does not say decidedBy "owner"): ask one (serve.operators)`
      : `approval ${id} is not yours to decide: only an operator or the run's own principal where its rule allows it`,
  );
}

/** `E_USAGE`: the question was decided already — by whom, how and when. */
export function alreadyDecided(doc: ApprovalDocument): AgentdError {
  const d = doc.approval.decision;
  const how = d ? `${d.decision} by ${d.by} at ${d.at}${d.reason ? ` (${d.reason})` : ""}` : "earlier";
  return new AgentdError("E_USAGE", `approval ${doc.approval.request.id} was already decided: ${how}`, {
    data: { decision: d },
  });
}

/** Who a viewer is in a recorded decision: its principal, or `agent` for the agent's own code. */
export const deciderName = (viewer: ApprovalViewer): string => viewer.principal ?? "agent";
