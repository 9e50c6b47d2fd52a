/**
 * The console's JSON API under `/console/api/`: the operator actions (POST, each the A2A operator method of
 * the same name, so an action from the page and one over A2A are checked and logged alike), the answers to
 * what the agent waits on (console-answer.ts), and the reads (GET: the snapshot, one run, an older page of
 * runs), scoped to the caller.
 */
import { readConsoleBody } from "./console-body.ts";
import type { Logger } from "../../log.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import { startFromConsole } from "./console-start.ts";
import { answerFromConsole, DECISIONS } from "./console-answer.ts";
import { callOperator, type OperatorSurface } from "../../a2a/server/operator.ts";
import { A2aError } from "../../a2a/shared/types.ts";
import { can, type Principal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import { runQueryFromUri } from "../../serve/run-list.ts";
import { listRuns, readRun } from "../../serve/shared-run-history.ts";
import type { Caller } from "../../transport/http-server/context.ts";
import { consoleFailure, consoleJson, methodNotAllowed, withHeaders } from "./console-http.ts";
import { consoleSnapshot, type ConsoleViewSources } from "./console-view.ts";
import { traceLink } from "./trace-link.ts";
import { conversationView } from "./console-conversation.ts";

/** The operator actions, each the A2A operator method of the same name. */
const ACTIONS: Record<string, string> = {
  cancel: "agentd/cancel",
  pause: "agentd/pause",
  resume: "agentd/resume",
  drain: "agentd/drain",
  reload: "agentd/reload",
};

const HTTP_OF: Partial<Record<A2aError["kind"], number>> = {
  PermissionDenied: 403,
  InvalidParams: 400,
  TaskNotFound: 404,
  UnsupportedOperation: 409,
};

/** What the API reads from and acts on. */
export interface ConsoleApiContext {
  registry: RunRegistry;
  sources: ConsoleViewSources;
  surface: OperatorSurface;
  traceUrl: string | undefined;
  /** What runs `agent.run`: with it, operators may start a run from the page (`POST /console/api/start`). */
  runner?: ServedRunner;
  logger: Logger;
}

/** Serve `/console/api/<sub>` for an authenticated caller. */
export async function serveConsoleApi(
  ctx: ConsoleApiContext,
  req: Request,
  sub: string,
  who: Principal,
  caller: Caller,
): Promise<Response> {
  if (sub === "start" && ctx.runner) {
    if (req.method !== "POST") return methodNotAllowed("POST");
    const answer = await startFromConsole(req, who, {
      registry: ctx.registry,
      runner: ctx.runner,
      approvals: ctx.sources.questions?.desk,
      logger: ctx.logger,
    });
    return consoleJson(answer.body, answer.status);
  }
  if (sub in DECISIONS || sub === "answer") {
    if (req.method !== "POST") return methodNotAllowed("POST");
    const answer = await answerFromConsole({ ...ctx.sources.questions, logger: ctx.logger }, req, sub, who);
    return consoleJson(answer.body, answer.status);
  }
  if (sub in ACTIONS) return runAction(ctx.surface, req, ACTIONS[sub]!, who);
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
  if (!can(who, "status")) return withHeaders(caller.forbid?.("status") ?? new Response(null, { status: 403 }));
  if (sub === "snapshot") return consoleJson(await consoleSnapshot(ctx.sources, who));
  if (sub === "run") return runDetail(ctx, req, who);
  if (sub === "runs") return runsPage(ctx, req, who);
  return consoleFailure(404, "not_found", "no such console API");
}

/** An operator action: its JSON params read and checked, then the operator method's answer or refusal. */
async function runAction(surface: OperatorSurface, req: Request, method: string, who: Principal): Promise<Response> {
  if (req.method !== "POST") return methodNotAllowed("POST");
  const params = await readActionParams(req);
  if (params instanceof Response) return params;
  try {
    return consoleJson({ result: await callOperator(surface, method, params, who) });
  } catch (e) {
    if (!(e instanceof A2aError)) throw e;
    return consoleFailure(HTTP_OF[e.kind] ?? 500, e.kind, e.message);
  }
}

/** An action's body: a JSON object (console-body.ts; empty means `{}`). */
async function readActionParams(req: Request): Promise<Record<string, unknown> | Response> {
  const body = await readConsoleBody(req, "the action's parameters", { emptyIsObject: true });
  return body.ok ? body.params : consoleFailure(body.status, body.code, body.message);
}

/** One run's record, with a link to its trace when the backend's trace page is configured. */
async function runDetail(ctx: ConsoleApiContext, req: Request, who: Principal): Promise<Response> {
  const q = new URL(req.url).searchParams;
  const id = q.get("id") ?? "";
  // Another principal's run is named by its owner, and only an operator may name one.
  const owner = who.role === "operator" ? (q.get("principal") ?? who.id) : who.id;
  const found = await readRun(ctx.registry, id, { id: who.id, operator: who.role === "operator" }, owner);
  if (!found) return consoleFailure(404, "not_found", `no run ${id.slice(0, 80)} is held for ${owner}`);
  const link = traceLink(ctx.traceUrl, found.record.detail?.traceId);
  // A run that continued a conversation shows it, read as the run's owner reads it.
  const conversationId = (found.record as { conversationId?: unknown }).conversationId;
  const conversation =
    typeof conversationId === "string" && conversationId
      ? await conversationView(ctx.sources.facts.conversations, conversationId, found.owner)
      : undefined;
  return consoleJson({ principal: found.owner, ...found.record, traceLink: link || undefined, conversation });
}

/** Older pages of the list (the snapshot holds the newest): the query of agent://runs, the same paging. */
async function runsPage(ctx: ConsoleApiContext, req: Request, who: Principal): Promise<Response> {
  let query: ReturnType<typeof runQueryFromUri>;
  try {
    query = runQueryFromUri(`agent://runs${new URL(req.url).search}`);
  } catch (e) {
    return consoleFailure(400, "invalid_params", (e as Error).message);
  }
  const page = await listRuns(ctx.registry, query, who.role === "operator" ? undefined : who.id);
  return consoleJson({ ...page, runs: page.runs.map((r) => ({ principal: who.id, ...r })) });
}
