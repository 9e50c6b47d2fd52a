/**
 * A2A over HTTP on the agent's listener, beside the MCP endpoint: the agent card at
 * `/.well-known/agent-card.json` (public, with ETag and Cache-Control), the JSON-RPC binding at `/a2a`
 * and the HTTP+JSON binding under `/a2a/rest` (v0.3's at `/a2a/rest/v1/…`). Both bindings are authenticated like the MCP endpoint
 * (the listener checks Host, Origin and credentials before a request gets here) and bounded in size.
 *
 * Versions: `A2A-Version: 1.x` is served in v1.0 shapes; a request without the header (or with 0.3) is
 * v0.3, as the spec says, and answered in v0.3 shapes by the codec in `v03/` — except a v1.0 method name
 * without the header, which can only mean 1.0. Any other version is refused with VersionNotSupported.
 *
 * This module only routes: each binding is its own module (`json-rpc-binding.ts`, `rest-binding.ts`,
 * `v03/rest.ts`), handed the shared context and the caller as data.
 */
import { A2aError, type AgentCard } from "../shared/types.ts";
import type { Logger } from "../../log.ts";
import type { HttpMount } from "../../transport/http-server/index.ts";
import type { Caller, HttpRequestConn } from "../../transport/http-server/context.ts";
import { traceCarrierFromMeta } from "../../loop/trace-context.ts";
import { can, resolvePrincipal, type Principal } from "../../serve/principal.ts";
import { a2aPermission } from "../../serve/permissions.ts";
import { type A2aBindingContext, type A2aCaller, gatedService } from "./binding-context.ts";
import { cardResponse } from "./card-response.ts";
import { serveJsonRpc } from "./json-rpc-binding.ts";
import { serveRest } from "./rest-binding.ts";
import type { A2aService } from "./service.ts";
import { createStreamCap } from "./stream-cap.ts";
import { serveV03Rest, v03RestError } from "./v03/rest.ts";
import { wireVersion } from "./wire-version.ts";

/** The well-known path of the agent card. */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** The JSON-RPC endpoint path; the HTTP+JSON binding lives under `${A2A_PATH}/rest`. */
export const A2A_PATH = "/a2a";

/** What the mount needs. */
export interface A2aMountOptions {
  service: A2aService;
  /** The card for a principal (undefined: the public card). */
  card: (principal?: Principal, origin?: string) => AgentCard;
  operators: ReadonlySet<string>;
  maxBodyBytes: number;
  /** Time a request body may take to arrive (408 and the connection closed past it). */
  bodyTimeoutMs: number;
  /** Open SSE streams (SendStreamingMessage, SubscribeToTask, both bindings and versions) one principal may hold; 429 past it. */
  maxStreamsPerPrincipal: number;
  logger: Logger;
}

/** Build the mount. */
export function createA2aMount(o: A2aMountOptions): HttpMount {
  const ctx: A2aBindingContext = {
    service: o.service,
    maxBodyBytes: o.maxBodyBytes,
    bodyTimeoutMs: o.bodyTimeoutMs,
    toA2aError: (e) => toA2aError(e, o.logger),
    sse: createStreamCap(o.maxStreamsPerPrincipal, o.logger),
  };
  return {
    match: (path) => path === AGENT_CARD_PATH || path === A2A_PATH || path.startsWith(`${A2A_PATH}/rest/`),
    isPublic: (path) => path === AGENT_CARD_PATH,
    async handle(req: Request, caller: Caller, conn: HttpRequestConn): Promise<Response> {
      const path = new URL(req.url).pathname;
      if (path === AGENT_CARD_PATH) {
        if (req.method !== "GET" && req.method !== "HEAD")
          return new Response("Method Not Allowed", { status: 405, headers: { allow: "GET, HEAD" } });
        return cardResponse(req, conn, o.card);
      }
      const a2aCaller = authenticatedCaller(req, caller, conn, o.operators);
      if (path === A2A_PATH) return serveJsonRpc(ctx, req, a2aCaller);
      const sub = path.slice(`${A2A_PATH}/rest`.length);
      if (sub.startsWith("/v1/")) {
        const w = wireVersion(req);
        if (w instanceof A2aError) return v03RestError(w);
        return serveV03Rest({ ...ctx, service: gatedService(o.service, a2aCaller.lacks) }, req, sub.slice(3), a2aCaller.who, conn);
      }
      if (sub === "/extendedAgentCard" && req.method === "GET") return cardResponse(req, conn, o.card, a2aCaller.who);
      return serveRest(ctx, req, sub, a2aCaller);
    },
  };
}

/**
 * Who is calling, with the caller's W3C trace context (the `traceparent` header: the run's span becomes
 * its child), and what they may not do (permissions.ts): 403 insufficient_scope before anything runs.
 */
function authenticatedCaller(req: Request, caller: Caller, conn: HttpRequestConn, operators: ReadonlySet<string>): A2aCaller {
  const trace = traceCarrierFromMeta({
    traceparent: req.headers.get("traceparent") ?? undefined,
    tracestate: req.headers.get("tracestate") ?? undefined,
  });
  const who = { ...resolvePrincipal(caller.authInfo, operators), traceContext: trace };
  const lacks = (method: string): Response | undefined => {
    const needed = a2aPermission(method);
    return needed && !can(who, needed) ? (caller.forbid?.(needed) ?? new Response(null, { status: 403 })) : undefined;
  };
  return { who, conn, lacks };
}

/** Any failure as an A2A error: one the service raised as is, anything else logged and answered as Internal. */
function toA2aError(e: unknown, logger: Logger): A2aError {
  if (e instanceof A2aError) return e;
  logger.error("a2a.failed", { error: e instanceof Error ? e.message : String(e) });
  return new A2aError("Internal", "internal error");
}
