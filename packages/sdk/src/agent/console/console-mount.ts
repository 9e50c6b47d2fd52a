/**
 * The operator's console on the HTTP listener (`/console`): a page and its two assets, embedded in the
 * program, plus a small JSON API and an SSE stream of snapshots. The page and assets are public (they hold no
 * data); everything under `/console/api/` and `/console/events` goes through the listener's authentication,
 * and what it shows is scoped to the caller (console-view.ts). Actions are the A2A operator channel's own
 * implementation (`callOperator`): operators only, and every one is logged the same way.
 *
 * Every answer carries a strict Content-Security-Policy (no inline script or style, no eval, no framing),
 * `nosniff` and `no-referrer`. The token a person types into the page is sent as an `Authorization` header;
 * there are no cookies, so a cross-site request carries no credential.
 *
 * This module routes; the API (console-api.ts), the event stream (console-events.ts) and the shared headers
 * (console-http.ts) are their own modules.
 */
import type { Logger } from "../../log.ts";
import type { OperatorSurface } from "../../a2a/server/operator.ts";
import { can, resolvePrincipal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { ServedRunner } from "../../serve/served-mcp.ts";
import type { HttpMount } from "../../transport/http-server/index.ts";
import { CONSOLE_APP_JS, CONSOLE_CSS, CONSOLE_HTML } from "./assets.generated.ts";
import { serveConsoleApi } from "./console-api.ts";
import { createConsoleEvents } from "./console-events.ts";
import type { ConsoleFacts } from "./console-facts.ts";
import { consoleFailure, consoleJson, methodNotAllowed, SECURITY_HEADERS, withHeaders } from "./console-http.ts";
import type { ConsoleViewSources } from "./console-view.ts";
import type { ApprovalDesk } from "../../loop/approvals/approval-desk.ts";
import { type ElicitationSource, viewedDesk } from "./console-questions.ts";

export { CONSOLE_CSP } from "./console-http.ts";

/** Where the console is served. */
export const CONSOLE_PATH = "/console";

const ASSETS: Record<string, { body: string; type: string }> = {
  [CONSOLE_PATH]: { body: CONSOLE_HTML, type: "text/html; charset=utf-8" },
  [`${CONSOLE_PATH}/`]: { body: CONSOLE_HTML, type: "text/html; charset=utf-8" },
  [`${CONSOLE_PATH}/app.js`]: { body: CONSOLE_APP_JS, type: "text/javascript; charset=utf-8" },
  [`${CONSOLE_PATH}/console.css`]: { body: CONSOLE_CSS, type: "text/css; charset=utf-8" },
};

/** Public: whether the page must ask for a token (it then sends none before one is typed). */
const AUTH_PATH = `${CONSOLE_PATH}/api/auth`;

/** What the console mount needs. */
export interface ConsoleMountOptions {
  registry: RunRegistry;
  facts: ConsoleFacts;
  /** Principal ids with the operator role. */
  operators: ReadonlySet<string>;
  /** What the operator actions reach (the A2A operator channel's surface). */
  operator: Omit<OperatorSurface, "registry" | "logger">;
  /** The served MCP tasks with their owners. */
  mcpTasks?: ConsoleViewSources["mcpTasks"];
  /** The approval desk: its questions are listed and, by operators, decided from the page. */
  approvals?: ApprovalDesk;
  /** Sends an operator's answer to an A2A task's elicitation (the A2A `SendMessage` path); none without A2A. */
  a2aSend?: ElicitationSource["send"];
  /** What runs `agent.run`: with it, operators may start a run from the page (`POST /console/api/start`). */
  runner?: ServedRunner;
  /** The OTLP backend's trace page, `{traceId}` in it (`telemetry.traceUrl`): a run's trace id links there. */
  traceUrl?: string;
  /** Whether the listener authenticates callers (the page then asks for a token before anything else). */
  authRequired: boolean;
  /** Open event streams one principal may hold (429 past it). Default 16. */
  maxStreamsPerPrincipal?: number;
  /** How often an open event stream re-checks for changes not reported as events (uptime, connections), ms. */
  refreshMs?: number;
  keepAliveMs?: number;
  logger: Logger;
}

/** A console mount and its teardown. */
export interface ConsoleMount extends HttpMount {
  close(): void;
}

/** Build the console mount. */
export function createConsoleMount(o: ConsoleMountOptions): ConsoleMount {
  const sources = viewSources(o);
  const api = {
    registry: o.registry,
    sources,
    surface: { ...o.operator, registry: o.registry, logger: o.logger },
    traceUrl: o.traceUrl,
    runner: o.runner,
    logger: o.logger,
  };
  const events = createConsoleEvents({
    sources,
    facts: o.facts,
    maxStreamsPerPrincipal: o.maxStreamsPerPrincipal,
    refreshMs: o.refreshMs,
    keepAliveMs: o.keepAliveMs,
    logger: o.logger,
  });
  return {
    match: (path) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`),
    isPublic: (path) => Object.hasOwn(ASSETS, path) || path === AUTH_PATH,
    allowSameOrigin: true,
    // The listener's own refusals (401 without a token, 403 for a foreign Origin) carry them too.
    headers: SECURITY_HEADERS,
    async handle(req, caller) {
      const path = new URL(req.url).pathname;
      const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
      if (asset) return assetResponse(req, asset);
      if (path === AUTH_PATH) return consoleJson({ required: o.authRequired });
      const who = resolvePrincipal(caller.authInfo, o.operators);
      if (path === `${CONSOLE_PATH}/events`) {
        if (req.method !== "GET") return methodNotAllowed("GET");
        if (!can(who, "status")) return withHeaders(caller.forbid?.("status") ?? new Response(null, { status: 403 }));
        return events.open(who);
      }
      if (path.startsWith(`${CONSOLE_PATH}/api/`)) return serveConsoleApi(api, req, path.slice(`${CONSOLE_PATH}/api/`.length), who, caller);
      return consoleFailure(404, "not_found", "no such console page");
    },
    close() {
      events.close();
    },
  };
}

/** What the views read: the registry, the facts (readiness cached), the unfinished A2A tasks, the MCP tasks. */
function viewSources(o: ConsoleMountOptions): ConsoleViewSources {
  return {
    registry: o.registry,
    facts: { ...o.facts, ready: cachedReadiness(o.facts) },
    mcpTasks: o.mcpTasks,
    questions: {
      desk: o.approvals && viewedDesk(o.approvals),
      elicitations: { unfinished: () => o.operator.tasks.unfinished(), send: o.a2aSend },
    },
    a2aTasks: () =>
      o.operator.tasks
        .unfinished()
        .map(({ owner, task }) => ({ owner, id: task.id, contextId: task.contextId, state: String(task.status.state) })),
    startedAt: Date.now(),
  };
}

/** Readiness may try to connect the servers: asked at most every 5 s, however many pages are open. */
function cachedReadiness(facts: ConsoleFacts): ConsoleFacts["ready"] {
  let readiness: { at: number; answer: ReturnType<ConsoleFacts["ready"]> } | undefined;
  return () => {
    if (!readiness || Date.now() - readiness.at > 5000) readiness = { at: Date.now(), answer: facts.ready() };
    return readiness.answer;
  };
}

/** One of the embedded assets (public: they hold no data). */
function assetResponse(req: Request, asset: { body: string; type: string }): Response {
  if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
  return withHeaders(
    new Response(req.method === "HEAD" ? null : asset.body, { headers: { "content-type": asset.type, "cache-control": "no-cache" } }),
  );
}
