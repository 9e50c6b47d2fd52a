/**
 * The run list (`agent://runs`): a page of runs, newest first, filtered, with an opaque cursor for the
 * next page. The query travels in the resource URI's query string, e.g.
 * `agent://runs?status=failed&via=trigger&q=report&limit=20&cursor=…`, so any MCP client can read it with
 * `resources/read` and no extension.
 */
import type { Usage } from "../model/language-model.ts";
import type { RunRecord, RunVia } from "./run-registry.ts";

/** What to list. Every field is optional; filters combine with AND. */
export interface RunQuery {
  status?: RunRecord["status"];
  /** How runs were started. */
  via?: RunVia;
  /** The id of the trigger that started them. */
  trigger?: string;
  /** The owner's principal id (the operator's view only; others see their own runs whatever they ask). */
  principal?: string;
  /** Text found (case-insensitive) in the run id, the instruction, the answer or the error. */
  text?: string;
  /** Runs per page: 1–{@link MAX_RUN_PAGE}, default {@link DEFAULT_RUN_PAGE}. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

/** One run in a listing: its record without the detail, the instruction and answer cut short. */
export interface RunSummary {
  runId: string;
  status: RunRecord["status"];
  via?: RunVia;
  trigger?: string;
  /** The owner, in the operator's view. */
  principal?: string;
  instruction: string;
  startedAt: string;
  endedAt?: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  stopReason?: string;
  /** The start of the final answer. */
  answer?: string;
  error?: { code: string; message: string };
  /** Spend in US dollars, when model prices are configured (`model.prices`) and the run ended. */
  costUsd?: number;
  /** The W3C trace id of the run's spans, when tracing is on. */
  traceId?: string;
  /** The replica that ran it, when runs are shared through a store (`durability.store`). */
  replica?: string;
  /** The conversation it continued, when it named one (`agent://conversations/{id}`). */
  conversationId?: string;
  /** While it waits: the tools whose calls wait for a decision (`server/tool`). */
  waitingOn?: string[];
}

/** A page of the run list. */
export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` for the next (older) page; absent on the last page. */
  nextCursor?: string;
}

/** Runs on a page of `agent://runs` when the query names no `limit`. */
export const DEFAULT_RUN_PAGE = 20;
/** The most runs one page of `agent://runs` holds, whatever `limit` asks. */
export const MAX_RUN_PAGE = 100;
const EXCERPT = 200;

const STATUSES = new Set(["running", "waiting", "succeeded", "failed"]);
const VIAS = new Set(["mcp", "a2a", "trigger"]);

/** The query in `uri`'s query string; an unknown status or via, or a bad limit, is an Error naming the parameter. */
export function runQueryFromUri(uri: string): RunQuery {
  const q = uri.indexOf("?");
  const params = new URLSearchParams(q < 0 ? "" : uri.slice(q + 1));
  const query: RunQuery = {};
  for (const [k, v] of params) {
    switch (k) {
      case "status":
        if (!STATUSES.has(v)) throw new Error(`status must be running, waiting, succeeded or failed (got '${v}')`);
        query.status = v as RunQuery["status"];
        break;
      case "via":
        if (!VIAS.has(v)) throw new Error(`via must be mcp, a2a or trigger (got '${v}')`);
        query.via = v as RunVia;
        break;
      case "limit": {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1 || n > MAX_RUN_PAGE)
          throw new Error(`limit must be an integer from 1 to ${MAX_RUN_PAGE} (got '${v}')`);
        query.limit = n;
        break;
      }
      case "trigger":
      case "principal":
      case "cursor":
        query[k] = v;
        break;
      case "q":
      case "text":
        query.text = v;
        break;
      default:
        throw new Error(`unknown parameter '${k}': use status, via, trigger, principal, q, limit or cursor`);
    }
  }
  return query;
}

/**
 * Page `entries` (in start order, oldest first) newest first. `withOwner`: name each run's principal.
 * `maxPage`: the most runs a page holds (the console's own listing holds more than an MCP page).
 */
export function pageOfRuns(
  entries: readonly { owner: string; record: RunRecord; seq: number }[],
  query: RunQuery,
  withOwner: boolean,
  maxPage = MAX_RUN_PAGE,
): RunPage {
  const before = query.cursor !== undefined && /^\d+$/.test(query.cursor) ? Number(query.cursor) : Infinity;
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_RUN_PAGE, 1), maxPage);
  const text = query.text?.toLowerCase();
  const runs: RunSummary[] = [];
  let last = 0;
  let more = false;
  const sorted = [...entries].sort((a, b) => b.seq - a.seq);
  for (const e of sorted) {
    if (e.seq >= before || !matches(e, query, text)) continue;
    if (runs.length === limit) {
      more = true;
      break;
    }
    runs.push(summaryOf(e.record, withOwner ? e.owner : undefined));
    last = e.seq;
  }
  return { runs, nextCursor: more ? String(last) : undefined };
}

function matches(e: { owner: string; record: RunRecord }, q: RunQuery, text: string | undefined): boolean {
  const r = e.record;
  if (q.status && r.status !== q.status) return false;
  if (q.via && r.via !== q.via) return false;
  if (q.trigger !== undefined && r.trigger !== q.trigger) return false;
  if (q.principal !== undefined && e.owner !== q.principal) return false;
  if (text === undefined) return true;
  return [r.runId, r.instruction, r.result?.text, r.error?.message, r.error?.code].some((s) => s?.toLowerCase().includes(text));
}

const cut = (s: string) => (s.length > EXCERPT ? `${s.slice(0, EXCERPT - 1)}…` : s);

/** A record as a listing shows it. */
export function summaryOf(r: RunRecord, principal?: string): RunSummary {
  return {
    runId: r.runId,
    status: r.status,
    // Key presence matters: the console and the shared history spread a summary over its owner.
    ...(r.via ? { via: r.via } : {}),
    ...(r.trigger !== undefined ? { trigger: r.trigger } : {}),
    ...(principal !== undefined ? { principal } : {}),
    instruction: cut(r.instruction),
    startedAt: r.startedAt,
    ...(r.endedAt ? { endedAt: r.endedAt } : {}),
    turns: r.turns,
    toolCalls: r.toolCalls,
    usage: r.usage,
    ...(r.result ? { stopReason: r.result.stopReason } : {}),
    ...(r.result?.text !== undefined ? { answer: cut(r.result.text) } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.detail?.costUsd !== undefined ? { costUsd: r.detail.costUsd } : {}),
    ...(r.detail?.traceId ? { traceId: r.detail.traceId } : {}),
    ...(r.replica ? { replica: r.replica } : {}),
    ...(r.conversationId ? { conversationId: r.conversationId } : {}),
    ...(r.status === "waiting" ? { waitingOn: (r.approvals ?? []).filter((a) => !a.decision).map((a) => a.tool) } : {}),
  };
}

/** One run of a list gathered from several replicas: its owner and its summary (without `principal`). */
export interface ListedRun {
  owner: string;
  summary: RunSummary;
}

/** Where a listed run sorts: by start time, then owner, run id and replica (newest first = greatest first). */
const orderKey = (r: ListedRun) => `${r.summary.startedAt}\n${r.owner}\n${r.summary.runId}\n${r.summary.replica ?? ""}`;

/**
 * Page runs gathered from several replicas, newest first by start time. The cursor is the last run's place
 * in that order (opaque, base64url), so a page stays right while other replicas add runs. The same run
 * listed twice (held here and read back from the store) appears once, the first given winning.
 */
export function pageOfListed(items: readonly ListedRun[], query: RunQuery, withOwner: boolean, maxPage = MAX_RUN_PAGE): RunPage {
  const before = cursorKey(query.cursor);
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_RUN_PAGE, 1), maxPage);
  const text = query.text?.toLowerCase();
  const keyed = new Map<string, ListedRun>();
  for (const r of items) {
    const k = orderKey(r);
    if (!keyed.has(k)) keyed.set(k, r);
  }
  const sorted = [...keyed.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
  const runs: RunSummary[] = [];
  let last = "";
  let more = false;
  for (const [k, r] of sorted) {
    if ((before !== undefined && k >= before) || !summaryMatches(r, query, text)) continue;
    if (runs.length === limit) {
      more = true;
      break;
    }
    const { principal: _p, ...summary } = r.summary;
    runs.push(withOwner ? { ...summary, principal: r.owner } : summary);
    last = k;
  }
  return { runs, nextCursor: more ? Buffer.from(last).toString("base64url") : undefined };
}

/** The order key a fleet cursor names, or undefined for none (or one of another shape: the first page). */
function cursorKey(cursor: string | undefined): string | undefined {
  if (cursor === undefined || !/^[A-Za-z0-9_-]{8,2048}$/.test(cursor)) return undefined;
  const k = Buffer.from(cursor, "base64url").toString();
  return /^\d{4}-\d\d-\d\dT/.test(k) ? k : undefined;
}

function summaryMatches(r: ListedRun, q: RunQuery, text: string | undefined): boolean {
  const s = r.summary;
  if (q.status && s.status !== q.status) return false;
  if (q.via && s.via !== q.via) return false;
  if (q.trigger !== undefined && s.trigger !== q.trigger) return false;
  if (q.principal !== undefined && r.owner !== q.principal) return false;
  if (text === undefined) return true;
  return [s.runId, s.instruction, s.answer, s.error?.message, s.error?.code].some((x) => x?.toLowerCase().includes(text));
}
