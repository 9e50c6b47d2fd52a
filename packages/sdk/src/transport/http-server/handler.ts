/**
 * The web-standard request handler of the server (`Request` in, `Response` out), independent of the runtime
 * adapter. Order of checks on the MCP endpoint: Host (DNS rebinding) → Origin → authentication → method.
 * The RFC 9728 metadata and the extra routes live outside the endpoint and are not authenticated.
 */
import { limitRepeats } from "../../_internal/repeat-limiter.ts";
import { type AuthOutcome, createAuthenticator, PROTECTED_RESOURCE_PATH } from "./auth.ts";
import type { Caller, HandlerContext, HttpRequestConn } from "./context.ts";
import { handleDelete, handleGet } from "./handle-get.ts";
import { handlePost } from "./handle-post.ts";
import type { HttpMount, ResolvedServerConfig } from "./options.ts";
import { createHostCheck, createOriginCheck } from "./origin-check.ts";
import { badRequest, forbidden, jsonRpcHttpError, methodNotAllowed } from "./responses.ts";
import { ReplayBudget } from "./replay-budget.ts";
import { SessionRegistry } from "./sessions.ts";
import { SseWriter, type SseEndHook, type SseEndReason } from "./sse-writer.ts";
import type { Logger } from "../../log.ts";

/** A running handler. */
export interface McpHttpHandler {
  /** Answer `req`; `path` when the adapter already matched it to the MCP endpoint (else read from the URL). */
  handle(req: Request, conn: HttpRequestConn, path?: string): Promise<Response>;
  /** Live sessions and open SSE streams. */
  stats(): { sessions: number; streams: number };
  /** End every session (their `onclose` fires) and stop timers. */
  close(): void;
}

/** The answer to a request whose handling failed unexpectedly: logged, and a JSON-RPC 500. */
function failedRequest(logger: Logger, path: string, e: unknown): Response {
  logger.error("http.handler_failed", { path, error: e instanceof Error ? e.message : String(e) });
  return jsonRpcHttpError(500, -32603, "Internal error");
}

/**
 * The MCP endpoint's answer (`handleMcp`'s), as `handle` gives it. Not an async function: every request
 * passes here, and an async frame awaiting the answer would cost a generator and a promise hop each. A
 * promise `handleMcp` returns never rejects (a POST's handler answers its own failures with `failed`, and
 * the path that waits on authentication catches with it), so it is handed on as it is; a synchronous throw
 * is answered by the same catch-all.
 */
function answerMcp(
  handleMcp: (req: Request, conn: HttpRequestConn) => Response | Promise<Response>,
  failed: (e: unknown) => Response,
  req: Request,
  conn: HttpRequestConn,
): Promise<Response> {
  let answer: Response | Promise<Response>;
  try {
    answer = handleMcp(req, conn);
  } catch (e) {
    return Promise.resolve(failed(e));
  }
  return answer instanceof Promise ? answer : Promise.resolve(answer);
}

/** `res` with the headers `mount` puts on every answer. */
function dressed(mount: HttpMount | undefined, res: Response): Response {
  for (const [k, v] of Object.entries(mount?.headers ?? {})) res.headers.set(k, v);
  return res;
}

/** The caller of an endpoint without auth. */
const ANONYMOUS: Caller = Object.freeze({ authInfo: undefined, principal: "" });

/** The path part of an absolute URL string, without building a URL object on the hot path. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  const h = url.indexOf("#", start);
  const end = q >= 0 ? q : h >= 0 ? h : url.length;
  return url.slice(start, end);
}

/** Whether `origin` names the host the request reached (its Host header, already checked against the allowed hosts). */
function sameOrigin(origin: string | null, host: string | null): boolean {
  if (!origin || !host || !URL.canParse(origin)) return false;
  return new URL(origin).host === host.toLowerCase();
}

/** The session table of a server, with its limits. */
function createSessions(config: ResolvedServerConfig): SessionRegistry {
  const { limits, logger } = config;
  const authenticated =
    config.bearerTokens.length > 0 || config.mtls || config.jwtIssuers.length > 0 || config.proxy?.forwardedClientCert === true;
  return new SessionRegistry({
    maxSessions: limits.maxSessions,
    // Without auth every caller is the one local principal: the server-wide cap is its cap.
    maxSessionsPerPrincipal: authenticated ? limits.maxSessionsPerPrincipal : 0,
    sessionIdleMs: limits.sessionIdleMs,
    initializeTimeoutMs: limits.initializeTimeoutMs,
    maxStreamsPerSession: limits.maxStreamsPerSession,
    eventStoreEvents: limits.eventStoreEvents,
    eventStoreBytes: limits.eventStoreBytes,
    replayBudget: new ReplayBudget(limits.eventStoreTotalBytes),
    retryMs: limits.retryMs,
    logger,
  });
}

/**
 * Every open SSE writer of a server, with one keep-alive timer for all: comments on every open stream keep
 * idle timers (ours, proxies') from cutting them. A POST's writer joins the set only once its body streams
 * (`HandlerContext.newWriter`): most end within their turn as one string body, and a set that every
 * request adds to and deletes from again slows down with its deleted entries. They are counted all the same.
 */
class SseWriters implements SseEndHook {
  /** The open writers that get keep-alives. */
  private readonly writers = new Set<SseWriter>();
  /** Open writers not in {@link writers} (not yet streaming). */
  private quick = 0;
  private readonly keepAlive: ReturnType<typeof setInterval>;

  constructor(
    private readonly maxBufferedBytes: number,
    keepAliveMs: number,
    private readonly logger: Logger,
  ) {
    this.keepAlive = setInterval(() => {
      for (const w of this.writers) w.keepAlive();
    }, keepAliveMs);
    this.keepAlive.unref?.();
  }

  /** Open writers. */
  get size(): number {
    return this.writers.size + this.quick;
  }

  open(keptAlive = true): SseWriter {
    const w = new SseWriter(this.maxBufferedBytes, this);
    if (keptAlive) this.writers.add(w);
    else this.quick++;
    return w;
  }

  /** A writer opened without keep-alives streams its body: it gets them from now on, while open. */
  streaming(w: SseWriter): void {
    if (!w.open) return;
    this.quick--;
    this.writers.add(w);
  }

  writerEnded(w: SseWriter, reason: SseEndReason): void {
    if (!this.writers.delete(w)) this.quick--;
    if (reason === "overflow") this.logger.warn("http.stream.cut", { reason: "peer not reading" });
  }

  close(): void {
    clearInterval(this.keepAlive);
    for (const w of [...this.writers]) w.end();
  }
}

/** The authenticator of the MCP endpoint `endpoint` (and of the mounts), from the server's auth options. */
function authenticatorFor(config: ResolvedServerConfig, endpoint: URL): ReturnType<typeof createAuthenticator> {
  return createAuthenticator({
    bearerTokens: config.bearerTokens,
    bearerPrincipals: config.bearerPrincipals,
    // A mesh's forwarded client certificate (from a configured proxy only) stands where our own mTLS would.
    mtls: config.mtls || config.proxy?.forwardedClientCert === true,
    jwtIssuers: config.jwtIssuers,
    // Behind a proxy or on a wildcard address the bound URL is not what clients reach (RFC 9728 §3.3).
    resource: (config.publicUrl ?? endpoint).href,
    resourceMetadata: config.resourceMetadata,
    bearer: config.bearer,
  });
}

/**
 * A 401's challenge as a forwarded request's client sees it: the metadata URL at the public `origin` its
 * trusted proxy forwarded, not the bound one.
 */
function challengeFor(response: Response, origin: string | undefined, metadataUrl: string): Response {
  const challenge = response.headers.get("www-authenticate");
  if (!origin || !challenge) return response;
  response.headers.set("www-authenticate", challenge.replace(metadataUrl, new URL(PROTECTED_RESOURCE_PATH, origin).href));
  return response;
}

/** Build the handler for a server bound at `publicPort`, whose MCP endpoint URL is `endpoint`. */
export function createMcpHttpHandler(config: ResolvedServerConfig, endpoint: URL, publicPort: number): McpHttpHandler {
  const { limits, logger } = config;
  const hostOk = createHostCheck(config.allowedHosts, { hostname: config.hostname, port: publicPort }, config.publicUrl?.host);
  const originOk = createOriginCheck(config.allowedOrigins);
  const auth = authenticatorFor(config, endpoint);
  const metadataPaths = new Set([PROTECTED_RESOURCE_PATH, `${PROTECTED_RESOURCE_PATH}${config.path}`]);
  // Behind a proxy without a configured publicUrl, each request's public URL is what its trusted proxy forwarded.
  const resourceAt = (origin: string) => new URL(config.path, origin).href;
  const metadataAt = (origin: string | undefined) =>
    origin && auth.metadata && !config.resourceMetadata?.resource ? { ...auth.metadata, resource: resourceAt(origin) } : auth.metadata;
  const challengeAt = (response: Response, origin: string | undefined) => challengeFor(response, origin, auth.metadataUrl);
  const sessions = createSessions(config);
  const writers = new SseWriters(limits.maxBufferedBytes, limits.keepAliveMs, logger);
  const mcpFailed = (e: unknown): Response => failedRequest(logger, config.path, e);
  const ctx: HandlerContext = {
    config,
    sessions,
    newWriter: (keptAlive) => writers.open(keptAlive),
    streaming: (w) => writers.streaming(w),
    forbid: auth.forbid,
    failed: mcpFailed,
  };

  /**
   * The MCP endpoint. Not itself async: a request that authenticates at once (no token to verify) waits on
   * nothing here. What it returns never rejects (see `answerMcp`).
   */
  function handleMcp(req: Request, conn: HttpRequestConn): Response | Promise<Response> {
    const headers = req.headers;
    if (hostOk && !hostOk(headers.get("host"))) return refuse(forbidden("Forbidden: Host not allowed"), "host");
    if (!originOk(headers.get("origin"))) return refuse(forbidden("Forbidden: Origin not allowed"), "origin");
    const a = auth.authenticate(req, conn.tlsPrincipal);
    return a instanceof Promise ? a.then((outcome) => route(req, conn, outcome)).then(undefined, mcpFailed) : route(req, conn, a);
  }

  function route(req: Request, conn: HttpRequestConn, a: AuthOutcome): Response | Promise<Response> {
    if (!a.ok) return refuse(challengeAt(a.response, conn.publicOrigin), "auth");
    const caller: Caller = a.authInfo ? { authInfo: a.authInfo, principal: `${a.authInfo.scheme}:${a.authInfo.principal}` } : ANONYMOUS;
    switch (req.method) {
      case "POST":
        return handlePost(ctx, req, conn, caller);
      case "GET":
        return handleGet(ctx, req, caller);
      case "DELETE":
        return handleDelete(ctx, req, caller);
      default:
        return methodNotAllowed("GET, POST, DELETE");
    }
  }

  /** A mount's answer, or the listener's refusal on its paths, with the headers the mount puts on every answer. */
  async function handleMount(mount: HttpMount, path: string, req: Request, conn: HttpRequestConn): Promise<Response> {
    return dressed(mount, await answerMount(mount, path, req, conn));
  }

  async function answerMount(mount: HttpMount, path: string, req: Request, conn: HttpRequestConn): Promise<Response> {
    if (hostOk && !hostOk(req.headers.get("host"))) return refuse(forbidden("Forbidden: Host not allowed"), "host");
    const origin = req.headers.get("origin");
    if (!originOk(origin) && !(mount.allowSameOrigin && sameOrigin(origin, req.headers.get("host"))))
      return refuse(forbidden("Forbidden: Origin not allowed"), "origin");
    if (mount.isPublic?.(path)) return mount.handle(req, ANONYMOUS, conn);
    const a = await auth.authenticate(req, conn.tlsPrincipal);
    if (!a.ok) return refuse(challengeAt(a.response, conn.publicOrigin), "auth");
    const caller: Caller = a.authInfo ? { authInfo: a.authInfo, principal: `${a.authInfo.scheme}:${a.authInfo.principal}` } : ANONYMOUS;
    return mount.handle(req, { ...caller, forbid: (p) => auth.forbid(a.authInfo, p) }, conn);
  }

  // Anyone can send refused requests: one line a minute per reason, with a count of the rest.
  const refusals = limitRepeats(logger);
  function refuse(response: Response, why: string): Response {
    refusals.warn("http.refused", { status: response.status, why }, why);
    return response;
  }

  /** Any other path (the metadata document, routes, mounts, or 404), or a request with a malformed forwarding header. */
  async function answerOther(req: Request, conn: HttpRequestConn, path: string): Promise<Response> {
    // Nothing a trusted proxy said is guessed at: its malformed header refuses the request, whatever the path.
    if (conn.malformedForwarding)
      return dressed(
        config.mounts.find((m) => m.match(path)),
        refuse(badRequest(`Bad Request: ${conn.malformedForwarding}`), "forwarded"),
      );
    try {
      if (auth.metadata && metadataPaths.has(path)) {
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
        // A forwarded origin varies the document per request: shared caches must not mix them.
        const origin = conn.publicOrigin;
        return Response.json(metadataAt(origin), { headers: { "cache-control": origin ? "private, max-age=300" : "max-age=300" } });
      }
      const route = Object.hasOwn(config.routes, path) ? config.routes[path] : undefined;
      if (route) {
        if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed("GET, HEAD");
        return await route(req);
      }
      const mount = config.mounts.find((m) => m.match(path));
      if (mount) return await handleMount(mount, path, req, conn);
      return new Response("Not Found", { status: 404 });
    } catch (e) {
      return failedRequest(logger, path, e);
    }
  }

  return {
    handle(req, conn, known) {
      const path = known ?? pathOf(req.url);
      return path === config.path && !conn.malformedForwarding ? answerMcp(handleMcp, mcpFailed, req, conn) : answerOther(req, conn, path);
    },
    stats: () => ({ sessions: sessions.size, streams: writers.size }),
    close() {
      refusals.flush();
      sessions.closeAll("server closing");
      writers.close();
    },
  };
}
