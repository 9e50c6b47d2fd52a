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
 */
import type { Logger } from "../../log.ts";
import { callOperator, type OperatorSurface } from "../../a2a/server/operator.ts";
import { A2aError } from "../../a2a/shared/types.ts";
import { can, resolvePrincipal, type Principal } from "../../serve/principal.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import type { HttpMount } from "../../transport/http-server/index.ts";
import type { Caller } from "../../transport/http-server/context.ts";
import { CONSOLE_APP_JS, CONSOLE_CSS, CONSOLE_HTML } from "./assets.generated.ts";
import type { ConsoleFacts } from "./console-facts.ts";
import { consoleSnapshot, type ConsoleViewSources } from "./console-view.ts";
import { listRuns, readRun } from "../../serve/shared-run-history.ts";
import { runQueryFromUri } from "../../serve/run-list.ts";
import { traceLink } from "./trace-link.ts";

/** Where the console is served. */
export const CONSOLE_PATH = "/console";

/** The Content-Security-Policy of every console answer. */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": CONSOLE_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

const ASSETS: Record<string, { body: string; type: string }> = {
  [CONSOLE_PATH]: { body: CONSOLE_HTML, type: "text/html; charset=utf-8" },
  [`${CONSOLE_PATH}/`]: { body: CONSOLE_HTML, type: "text/html; charset=utf-8" },
  [`${CONSOLE_PATH}/app.js`]: { body: CONSOLE_APP_JS, type: "text/javascript; charset=utf-8" },
  [`${CONSOLE_PATH}/console.css`]: { body: CONSOLE_CSS, type: "text/css; charset=utf-8" },
};

/** Public: whether the page must ask for a token (it then sends none before one is typed). */
const AUTH_PATH = `${CONSOLE_PATH}/api/auth`;

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
const MAX_ACTION_BODY = 64 * 1024;

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
  const startedAt = Date.now();
  // Readiness may try to connect the servers: asked at most every 5 s, however many pages are open.
  let readiness: { at: number; answer: ReturnType<ConsoleFacts["ready"]> } | undefined;
  const ready: ConsoleFacts["ready"] = () => {
    if (!readiness || Date.now() - readiness.at > 5000) readiness = { at: Date.now(), answer: o.facts.ready() };
    return readiness.answer;
  };
  const sources: ConsoleViewSources = {
    registry: o.registry,
    facts: { ...o.facts, ready },
    mcpTasks: o.mcpTasks,
    a2aTasks: () =>
      o.operator.tasks
        .unfinished()
        .map(({ owner, task }) => ({ owner, id: task.id, contextId: task.contextId, state: String(task.status.state) })),
    startedAt,
  };
  const surface: OperatorSurface = { ...o.operator, registry: o.registry, logger: o.logger };
  const streams = new Set<() => void>();
  const openStreams = new Map<string, number>();

  const json = (body: unknown, status = 200) => withHeaders(Response.json(body, { status, headers: { "cache-control": "no-store" } }));
  const failure = (status: number, code: string, message: string) => json({ error: { code, message } }, status);

  async function api(req: Request, sub: string, who: Principal, caller: Caller): Promise<Response> {
    if (sub in ACTIONS) {
      if (req.method !== "POST") return withHeaders(new Response(null, { status: 405, headers: { allow: "POST" } }));
      if (!(req.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json"))
        return failure(415, "unsupported_media_type", "send the action's parameters as application/json");
      const text = await req.text();
      if (text.length > MAX_ACTION_BODY) return failure(413, "too_large", `an action's body is at most ${MAX_ACTION_BODY} bytes`);
      let params: unknown;
      try {
        params = text.trim() === "" ? {} : JSON.parse(text);
      } catch {
        return failure(400, "invalid_json", "the body is not JSON");
      }
      if (typeof params !== "object" || params === null || Array.isArray(params))
        return failure(400, "invalid_params", "the body must be a JSON object");
      try {
        return json({ result: await callOperator(surface, ACTIONS[sub]!, params as Record<string, unknown>, who) });
      } catch (e) {
        if (!(e instanceof A2aError)) throw e;
        return failure(HTTP_OF[e.kind] ?? 500, e.kind, e.message);
      }
    }
    if (req.method !== "GET" && req.method !== "HEAD")
      return withHeaders(new Response(null, { status: 405, headers: { allow: "GET, HEAD" } }));
    if (!can(who, "status")) return withHeaders(caller.forbid?.("status") ?? new Response(null, { status: 403 }));
    if (sub === "snapshot") return json(await consoleSnapshot(sources, who));
    if (sub === "run") {
      const q = new URL(req.url).searchParams;
      const id = q.get("id") ?? "";
      // Another principal's run is named by its owner, and only an operator may name one.
      const owner = who.role === "operator" ? (q.get("principal") ?? who.id) : who.id;
      const found = await readRun(o.registry, id, { id: who.id, operator: who.role === "operator" }, owner);
      if (!found) return failure(404, "not_found", `no run ${id.slice(0, 80)} is held for ${owner}`);
      const link = traceLink(o.traceUrl, found.record.detail?.traceId);
      return json({ principal: found.owner, ...found.record, traceLink: link || undefined });
    }
    if (sub === "runs") {
      // Older pages of the list (the snapshot holds the newest): the query of agent://runs, the same paging.
      let query: ReturnType<typeof runQueryFromUri>;
      try {
        query = runQueryFromUri(`agent://runs${new URL(req.url).search}`);
      } catch (e) {
        return failure(400, "invalid_params", (e as Error).message);
      }
      const page = await listRuns(o.registry, query, who.role === "operator" ? undefined : who.id);
      return json({ ...page, runs: page.runs.map((r) => ({ principal: who.id, ...r })) });
    }
    return failure(404, "not_found", "no such console API");
  }

  function events(who: Principal): Response {
    const held = openStreams.get(who.id) ?? 0;
    const cap = o.maxStreamsPerPrincipal ?? 16;
    if (held >= cap) {
      o.logger.warn("console.stream.refused", { principal: who.id, open: held });
      const res = failure(429, "too_many_streams", `this principal already holds ${cap} open console streams; close a tab first`);
      res.headers.set("retry-after", "5");
      return res;
    }
    openStreams.set(who.id, held + 1);
    const release = () => {
      const n = (openStreams.get(who.id) ?? 1) - 1;
      if (n > 0) openStreams.set(who.id, n);
      else openStreams.delete(who.id);
    };
    const encoder = new TextEncoder();
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        let last = "";
        let pending = false;
        let closed = false;
        const push = async () => {
          if (pending || closed) return;
          pending = true;
          // Changes come in bursts (a run's turns and tool calls): one snapshot per tick of the event loop.
          await new Promise((r) => setTimeout(r, 50));
          pending = false;
          if (closed) return;
          let text: string;
          try {
            text = JSON.stringify(await consoleSnapshot(sources, who));
          } catch (e) {
            // A fact that fails to read costs this update, never the stream or the process.
            o.logger.warn("console.snapshot_failed", { error: e instanceof Error ? e.message : String(e) });
            return;
          }
          if (text === last || closed) return;
          last = text;
          try {
            controller.enqueue(encoder.encode(`event: snapshot\ndata: ${text}\n\n`));
          } catch {
            stop();
          }
        };
        const offRuns = o.registry.onChange(() => void push());
        const offFacts = o.facts.onChange?.(() => void push()) ?? (() => {});
        const refresh = setInterval(() => void push(), o.refreshMs ?? 2000);
        const keepAlive = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
          } catch {
            stop();
          }
        }, o.keepAliveMs ?? 15_000);
        stop = () => {
          if (closed) return;
          closed = true;
          release();
          offRuns();
          offFacts();
          clearInterval(refresh);
          clearInterval(keepAlive);
          streams.delete(stop);
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        streams.add(stop);
        // Bun sends no headers before the first body byte: the first snapshot goes at once.
        controller.enqueue(encoder.encode(": console\n\n"));
        void push();
      },
      cancel() {
        stop();
      },
    });
    return withHeaders(new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-store" } }));
  }

  return {
    match: (path) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`),
    isPublic: (path) => Object.hasOwn(ASSETS, path) || path === AUTH_PATH,
    allowSameOrigin: true,
    // The listener's own refusals (401 without a token, 403 for a foreign Origin) carry them too.
    headers: SECURITY_HEADERS,
    async handle(req, caller) {
      const path = new URL(req.url).pathname;
      const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
      if (asset) {
        if (req.method !== "GET" && req.method !== "HEAD")
          return withHeaders(new Response(null, { status: 405, headers: { allow: "GET, HEAD" } }));
        return withHeaders(
          new Response(req.method === "HEAD" ? null : asset.body, { headers: { "content-type": asset.type, "cache-control": "no-cache" } }),
        );
      }
      if (path === AUTH_PATH) return json({ required: o.authRequired });
      const who = resolvePrincipal(caller.authInfo, o.operators);
      if (path === `${CONSOLE_PATH}/events`) {
        if (req.method !== "GET") return withHeaders(new Response(null, { status: 405, headers: { allow: "GET" } }));
        if (!can(who, "status")) return withHeaders(caller.forbid?.("status") ?? new Response(null, { status: 403 }));
        return events(who);
      }
      if (path.startsWith(`${CONSOLE_PATH}/api/`)) return api(req, path.slice(`${CONSOLE_PATH}/api/`.length), who, caller);
      return failure(404, "not_found", "no such console page");
    },
    close() {
      for (const stop of [...streams]) stop();
    },
  };
}

function withHeaders(res: Response): Response {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.headers.set(k, v);
  return res;
}
