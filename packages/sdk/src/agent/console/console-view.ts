/**
 * What one principal sees in the console: an operator the whole agent; any other principal its own runs and
 * tasks, and, like `agent://status`, the agent's own configuration (triggers, servers, subagents) only
 * when it is the local user. Records are passed as they are (each page shows the fields it knows and the
 * rest as keys and values), so richer run records appear without a change here.
 */
import { LOCAL_PRINCIPAL, type Principal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import { listRuns } from "../../serve/shared-run-history.ts";
import type { ConsoleFacts } from "./console-facts.ts";
import { toolCallsByServer } from "./console-charts.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import { type ElicitationSource, questionsFor } from "./console-questions.ts";

/**
 * The runs a snapshot lists (newest first, the fleet's with a shared history); older ones are a page away
 * (`GET /console/api/runs?cursor=…`, from the snapshot's `runsCursor`), a run's detail one request.
 */
export const CONSOLE_RUNS = 200;

/** What the view reads. */
export interface ConsoleViewSources {
  registry: RunRegistry;
  facts: ConsoleFacts;
  /** The unfinished A2A tasks with their owners (none without A2A). */
  a2aTasks?: () => { owner: string; id: string; contextId: string; state: string }[];
  /** The served MCP tasks with their owners (none without `capabilities.tasks`). */
  mcpTasks?: () => { owner: string; view: object }[];
  /** What the agent waits on: the approval desk's questions and the A2A tasks' operator elicitations. */
  questions?: { desk?: ApprovalDesk; elicitations?: ElicitationSource };
  startedAt: number;
}

/** One page load's (or one pushed update's) data for `who`. */
export async function consoleSnapshot(s: ConsoleViewSources, who: Principal): Promise<Record<string, unknown>> {
  const operator = who.role === "operator";
  const own = operator || who.id === LOCAL_PRINCIPAL;
  const owner = operator ? undefined : who.id;
  const ready = await s.facts.ready().catch((e: unknown) => ({ ok: false as const, reason: e instanceof Error ? e.message : String(e) }));
  const lifecycle = s.facts.lifecycle();
  // The list carries summaries (a run's answer may be megabytes); its detail is GET /console/api/run.
  const page = await listRuns(s.registry, { limit: CONSOLE_RUNS }, owner, CONSOLE_RUNS);
  const runs = page.runs.map((r) => ({ principal: who.id, ...r }));
  const tasks = (s.a2aTasks?.() ?? []).filter((t) => owner === undefined || t.owner === owner);
  const mcpTasks = (s.mcpTasks?.() ?? [])
    .filter((t) => owner === undefined || t.owner === owner)
    .map((t) => ({ owner: t.owner, ...t.view }));
  return {
    principal: { id: who.id, role: who.role },
    overview: {
      version: s.facts.version ?? null,
      health: "ok",
      ready,
      state: lifecycle.state,
      startedAt: new Date(s.startedAt).toISOString(),
      status: s.registry.status(owner),
      principals: operator ? s.registry.principals() : undefined,
      sampling: own ? lifecycle.sampling : undefined,
      // As agent://status shows them to every principal: whether spend is counted in money at all.
      prices: s.facts.prices?.() ?? undefined,
    },
    runs,
    // For the runs in flight, where their timeline is: the page showing one re-reads it when this moves.
    live: liveSteps(s.registry, runs),
    // The Overview's tool-calls chart: per server, with the runs each bar links to.
    toolServers: toolCallsByServer(s.registry, owner),
    runsCursor: page.nextCursor || undefined,
    triggers: own ? (s.facts.triggers?.() ?? []) : undefined,
    servers: own ? (s.facts.servers?.() ?? []) : undefined,
    a2aPeers: own ? (s.facts.a2aPeers?.() ?? []) : undefined,
    // A subagent belongs to the run that spawned it, not to a principal: the agent's own to see.
    subagents: own ? (s.facts.subagents?.() ?? []) : undefined,
    tasks,
    mcpTasks,
    // What the agent waits on (the Questions page, and each run's page for its own).
    questions: await questionsFor(who, s.questions ?? {}),
  };
}

/** Each running run's step marker (turns, calls, words so far), keyed by principal and run id. */
function liveSteps(registry: RunRegistry, runs: { principal: string; runId: string; status: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of runs) {
    if (r.status !== "running") continue;
    const d = registry.get(r.runId, r.principal)?.detail;
    const last = d?.turns.at(-1);
    const calls = d?.turns.reduce((n, t) => n + t.toolCalls.filter((c) => c.durationMs !== undefined).length, 0) ?? 0;
    out[`${r.principal}\n${r.runId}`] =
      `${d?.turns.length ?? 0}.${calls}.${last?.text?.length ?? 0}.${last?.reasoning?.length ?? 0}.${last?.retries?.length ?? 0}`;
  }
  return out;
}

/** Strings past 300 characters cut, lists past 20 items cut, nesting past 3 levels elided: a bounded copy. */
export function excerpt(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.length > 300 ? `${value.slice(0, 300)}…` : value;
  if (typeof value !== "object" || value === null) return value;
  if (depth >= 3) return "…";
  if (Array.isArray(value)) return value.slice(0, 20).map((v) => excerpt(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, excerpt(v, depth + 1)]));
}
