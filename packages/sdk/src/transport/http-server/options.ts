/**
 * Options of the Streamable HTTP server, their safe defaults, and the one place that refuses an unsafe
 * configuration (a non-loopback bind without TLS and authentication, unless a configured proxy in front
 * terminates TLS — and then still with authentication).
 */
import * as v from "valibot";
import type { Logger } from "../../log.ts";
import { nullLogger } from "../../log.ts";
import { withoutUndefined } from "../../_internal/without-undefined.ts";
import { AgentdError } from "../../wire/errors.ts";
import { DEFAULT_MAX_FRAME_BYTES, type Permission, type Transport } from "../types.ts";
import type { AuthInfo } from "./auth.ts";
import { isLoopbackHost } from "./origin-check.ts";
import { loadPem } from "./tls-material.ts";
import type { JwtIssuerOptions } from "./jwt-verifier.ts";
import type { BehindProxyOptions, ProxyTrust } from "./behind-proxy.ts";
import type { CreateBearerCheck } from "./bearer-auth.ts";
import type { Caller, HttpRequestConn } from "./context.ts";
import type { JsonRpcRequest } from "../../wire/jsonrpc.ts";
import type { HttpAdapterName } from "./adapter/types.ts";

/** Resource limits. Every one has a safe default; a peer that breaks one is refused, others carry on. */
export interface HttpServerLimits {
  /** Largest POST body, in bytes (413 past it). Default 4 MiB. */
  maxBodyBytes?: number;
  /** Time a request body may take to arrive in full (408 and the connection closed past it). Default 10 s. */
  requestBodyTimeoutMs?: number;
  /**
   * Live sessions at once (503 for a new `initialize` past it, once no session holding nothing is left to
   * make room). Default 256.
   */
  maxSessions?: number;
  /**
   * Live sessions one principal may hold (429 for its new `initialize` past it, once none of its sessions
   * holding nothing is left to make room). Applies when the endpoint authenticates: without auth every
   * caller is the one local principal and only `maxSessions` applies. Default 64.
   */
  maxSessionsPerPrincipal?: number;
  /** A session whose client has not sent `notifications/initialized` this long after `initialize` is ended. Default 10 s. */
  initializeTimeoutMs?: number;
  /** Open SSE streams per session, POST and GET together (429 past it). Default 16. */
  maxStreamsPerSession?: number;
  /**
   * Open A2A SSE streams (SendStreamingMessage, SubscribeToTask; both bindings) one principal may hold at
   * once (429 past it). A2A has no sessions, so this is its bound where MCP has sessions × streams. Default 64.
   */
  maxA2aStreamsPerPrincipal?: number;
  /** Requests awaiting a response per session (429 past it). Default 64. */
  maxInFlightPerSession?: number;
  /** A session holding nothing (no open stream, no request in flight) for this long is ended. Default 60 s. */
  sessionIdleMs?: number;
  /** SSE events kept per session for `Last-Event-ID` replay (oldest dropped first). Default 256. */
  eventStoreEvents?: number;
  /** Bytes of SSE events kept per session for replay (oldest dropped first; a larger event is not kept). Default 4 MiB. */
  eventStoreBytes?: number;
  /** Bytes of SSE events kept for replay by all sessions together (the server's oldest dropped first). Default 64 MiB. */
  eventStoreTotalBytes?: number;
  /** Interval of SSE keep-alive comments on open streams. Default 15 s. */
  keepAliveMs?: number;
  /** The SSE `retry:` value sent at the start of each stream (client reconnect delay). Default 1000 ms. */
  retryMs?: number;
  /** Bytes an SSE stream may queue for a peer that does not read before it is cut off. Default 8 MiB. */
  maxBufferedBytes?: number;
}

/** RFC 9728 protected-resource metadata to publish when bearer auth is on. */
export interface ResourceMetadataOptions {
  /** The canonical URL of this MCP endpoint as clients see it. Default: the server's own URL. */
  resource?: string;
  /** Issuer URLs of authorization servers that mint the accepted tokens. */
  authorizationServers?: string[];
  /** Scopes this resource understands. */
  scopesSupported?: string[];
  /** A human-readable name. */
  resourceName?: string;
}

/** Options of {@link createStreamableHttpServer}. */
export interface StreamableHttpServerOptions {
  /** Address to bind. Default `127.0.0.1`. Anything not loopback requires `tls` and `auth`. */
  hostname?: string;
  /** Port to bind. Default 0 (an ephemeral port; read it from the handle). */
  port?: number;
  /** The MCP endpoint path. Default `/mcp`. */
  path?: string;
  /**
   * TLS. `cert`, `key` and `ca` each accept PEM contents (a string containing `-----BEGIN`) or a file path
   * (anything else), read once at start. `requireClientCert` (or `auth.mtls`) turns on mutual TLS.
   */
  tls?: { cert: string; key: string; ca?: string; requireClientCert?: boolean };
  /**
   * Authentication. Every request to the MCP endpoint is authenticated; sessions never stand in for it.
   * A bearer token is a string, or `{ token, name?, role? }`: `name` makes its principal `bearer:NAME`
   * (default `bearer:bearer#N`, N its position), `role: "operator"` marks the principal as an operator.
   */
  auth?: {
    bearerTokens?: (string | BearerTokenEntry)[];
    mtls?: boolean;
    resourceMetadata?: ResourceMetadataOptions;
    jwt?: JwtIssuerOptions[];
  };
  /**
   * The URL of the MCP endpoint as clients reach it (e.g. `https://agentd.example.com/mcp` behind a load
   * balancer, or when bound to `0.0.0.0`): advertised as the RFC 9728 `resource` and in the
   * `resource_metadata` URL of 401 challenges. Default: the bound address.
   */
  publicUrl?: string;
  /**
   * TLS is terminated by a proxy in front (an ingress, a load balancer, a mesh sidecar): a non-loopback address
   * is served without `tls`, authentication is still required (bearer, JWT, or the mesh's forwarded client
   * certificate), and `Forwarded` / `X-Forwarded-Proto` / `X-Forwarded-Host` / `X-Forwarded-Client-Cert` are
   * believed from these proxies' addresses only. Without `publicUrl`, a trusted proxy's forwarded origin is
   * the public URL of its request (RFC 9728 metadata, 401 challenges, the A2A card).
   */
  behindProxy?: BehindProxyOptions;
  /** Allowed `Origin` values (`scheme://host[:port]`). Default: no Origin header, or a loopback origin. */
  allowedOrigins?: string[];
  /** Allowed `Host` values (`host` any port, or `host:port`). Default: the bound address and loopback names. */
  allowedHosts?: string[];
  /** How POSTs carrying requests are answered: an SSE stream (default) or one `application/json` body. */
  responseMode?: "sse" | "json";
  /** Limits (see {@link HttpServerLimits}). */
  limits?: HttpServerLimits;
  /** A new session: connect an MCP server to this per-session transport (it calls `transport.start()`). */
  onsession: (transport: Transport) => void | Promise<void>;
  /**
   * Further header checks of a stateless (2026-07-28) request, after the standard ones: what is wrong, for a
   * 400 with -32020, or undefined. The MCP server's `Mcp-Param-*` check (`McpServer.paramHeaderMismatch`).
   */
  checkHeaders?: (message: JsonRpcRequest, headers: Headers) => string | undefined;
  /** Extra GET routes outside the MCP endpoint, e.g. `/healthz`. Not authenticated; Host/Origin not checked. */
  routes?: Record<string, (req: Request) => Response | Promise<Response>>;
  /**
   * Other protocols on the same listener (A2A): each claims paths outside the MCP endpoint and gets the same
   * Host, Origin and authentication checks, except for the paths it names public (a discovery document).
   */
  mounts?: HttpMount[];
  /** Telemetry. Tokens and request bodies are never logged. */
  logger?: Logger;
  /**
   * The socket layer: `"bun"` (`Bun.serve`, Bun only) or `"node"` (`node:http` / `node:https`, under Node and
   * under Bun, which implements them). Default: `"bun"` under Bun, `"node"` elsewhere. Every check, limit
   * and stream is the same with either.
   */
  adapter?: HttpAdapterName;
  /**
   * Checked for every JSON-RPC request of a POST before it is delivered: the permission the caller lacks for
   * it, if any. Such a POST is answered `403` with `error="insufficient_scope"` and the scope that grants it.
   */
  authorize?: McpAuthorizer;
}

/** See {@link StreamableHttpServerOptions.authorize}. */
export type McpAuthorizer = (authInfo: AuthInfo | undefined, method: string, params: unknown) => Permission | undefined;

/** A protocol mounted beside the MCP endpoint (see {@link StreamableHttpServerOptions.mounts}). */
export interface HttpMount {
  /** Whether this mount serves `path`. */
  match(path: string): boolean;
  /** Whether `path` is served without authentication (Host and Origin are still checked). */
  isPublic?(path: string): boolean;
  /**
   * Whether a request whose `Origin` is this listener's own (the origin's host is the request's checked
   * `Host`) passes besides the allowed origins: a page this mount serves may call it back (the console).
   */
  allowSameOrigin?: boolean;
  /**
   * Headers set on every answer for this mount's paths, the listener's own refusals (400, 401, 403)
   * included: a mount that promises a header on every answer (the console's Content-Security-Policy) keeps
   * that promise when the listener answers before the mount is asked.
   */
  headers?: Readonly<Record<string, string>>;
  /** Answer one request; `caller` is the authenticated principal (none on a public path or an open endpoint). */
  handle(req: Request, caller: Caller, conn: HttpRequestConn): Promise<Response>;
}

/** A bearer token with a name for its principal and, optionally, the operator role. */
export interface BearerTokenEntry {
  token: string;
  /** Letters, digits and `-._#@`; the principal is `bearer:NAME`. */
  name?: string;
  role?: "operator";
  /** What its holder may do (default: run and status; with the operator role, everything). */
  permissions?: readonly Permission[];
}

/** The options after defaults, validation and reading TLS material. */
export interface ResolvedServerConfig {
  hostname: string;
  port: number;
  path: string;
  tls?: { cert: string; key: string; ca?: string };
  mtls: boolean;
  bearerTokens: string[];
  /** Issuers whose JWT access tokens are accepted. */
  jwtIssuers: JwtIssuerOptions[];
  /** Per token (same order): its principal name, role and permissions. */
  bearerPrincipals: { name: string; role?: "operator"; permissions?: readonly Permission[] }[];
  publicUrl?: URL;
  /**
   * Set when a proxy in front terminates TLS (see {@link StreamableHttpServerOptions.behindProxy}); built by
   * `loadServerConfig`, which loads the proxy-trust modules only then.
   */
  proxy?: ProxyTrust;
  /** The bearer check's builder, loaded by `loadServerConfig` only with bearer tokens or OAuth issuers. */
  bearer?: CreateBearerCheck;
  resourceMetadata?: ResourceMetadataOptions;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  responseMode: "sse" | "json";
  limits: Required<HttpServerLimits>;
  onsession: StreamableHttpServerOptions["onsession"];
  checkHeaders?: StreamableHttpServerOptions["checkHeaders"];
  routes: Record<string, (req: Request) => Response | Promise<Response>>;
  mounts: HttpMount[];
  logger: Logger;
  authorize?: McpAuthorizer;
  /** Undefined: the runtime's own. */
  adapter?: HttpAdapterName;
}

/** The defaults of {@link HttpServerLimits}. */
export const DEFAULT_HTTP_LIMITS: Readonly<Required<HttpServerLimits>> = Object.freeze({
  maxBodyBytes: DEFAULT_MAX_FRAME_BYTES,
  requestBodyTimeoutMs: 10_000,
  maxSessions: 256,
  maxSessionsPerPrincipal: 64,
  initializeTimeoutMs: 10_000,
  maxStreamsPerSession: 16,
  maxA2aStreamsPerPrincipal: 64,
  maxInFlightPerSession: 64,
  sessionIdleMs: 60_000,
  eventStoreEvents: 256,
  eventStoreBytes: 4 * 1024 * 1024,
  eventStoreTotalBytes: 64 * 1024 * 1024,
  keepAliveMs: 15_000,
  retryMs: 1_000,
  maxBufferedBytes: 8 * 1024 * 1024,
});

const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const LimitsSchema = v.strictObject({
  maxBodyBytes: v.optional(positiveInt),
  requestBodyTimeoutMs: v.optional(positiveInt),
  maxSessions: v.optional(positiveInt),
  maxSessionsPerPrincipal: v.optional(positiveInt),
  initializeTimeoutMs: v.optional(positiveInt),
  maxStreamsPerSession: v.optional(positiveInt),
  maxA2aStreamsPerPrincipal: v.optional(positiveInt),
  maxInFlightPerSession: v.optional(positiveInt),
  sessionIdleMs: v.optional(positiveInt),
  eventStoreEvents: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  eventStoreBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  eventStoreTotalBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  keepAliveMs: v.optional(v.pipe(positiveInt, v.maxValue(120_000))),
  retryMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  maxBufferedBytes: v.optional(positiveInt),
});

const PERMISSIONS: ReadonlySet<unknown> = new Set(["run", "status", "operator"]);

/** Names of bearer-token principals. */
const TOKEN_NAME = /^[A-Za-z0-9\-._#@]{1,64}$/;

/** Bearer tokens: long enough to resist guessing, and legal in an `Authorization: Bearer` header (b64token). */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN_LENGTH = 16;

const invalid = (message: string) => new AgentdError("E_CONFIG_INVALID", message);

/**
 * Apply defaults and refuse unsafe or malformed options with one clear line (E_CONFIG_INVALID). The parts
 * only some configurations load (the proxy trust, the bearer check) are added by `loadServerConfig`.
 */
export function resolveOptions(o: StreamableHttpServerOptions): ResolvedServerConfig {
  if (typeof o.onsession !== "function") throw invalid("http server: onsession must be a function");
  const hostname = o.hostname ?? "127.0.0.1";
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalid(`http server: port ${port} is not 0-65535`);
  const path = o.path ?? "/mcp";
  if (!path.startsWith("/") || /[?#\s]/.test(path))
    throw invalid(`http server: path "${path}" must start with / and hold no ?, # or spaces`);

  const limits = resolveLimits(o.limits);
  const { bearerTokens, bearerPrincipals } = resolveBearerTokens(o.auth?.bearerTokens ?? []);
  const mtls = o.auth?.mtls === true || o.tls?.requireClientCert === true;
  if (mtls && !o.tls) throw invalid("http server: mutual TLS needs tls.cert, tls.key and tls.ca");
  if (mtls && !o.tls?.ca) throw invalid("http server: mutual TLS needs tls.ca (the CA that signs client certificates)");

  let tls: ResolvedServerConfig["tls"];
  if (o.tls) {
    if (!o.tls.cert || !o.tls.key) throw invalid("http server: tls needs both cert and key");
    tls = { cert: loadPem(o.tls.cert, "tls.cert"), key: loadPem(o.tls.key, "tls.key") };
    if (o.tls.ca) tls.ca = loadPem(o.tls.ca, "tls.ca");
  }

  const jwtIssuers = o.auth?.jwt ?? [];
  checkJwtIssuers(jwtIssuers);
  // The proxy list itself is checked where its trust is built (`loadServerConfig`, with its modules).
  const proxy = o.behindProxy || undefined;
  // Behind a proxy the peer address is the proxy's: a TLS front of our own would hide it (and mTLS with it).
  if (proxy && mtls)
    throw invalid(
      "http server: behindProxy and mutual TLS exclude each other: the mesh's forwarded client certificate is behindProxy.forwardedClientCert",
    );
  const proxied = proxy !== undefined && (bearerTokens.length > 0 || jwtIssuers.length > 0 || proxy.forwardedClientCert === true);
  if (!isLoopbackHost(hostname) && !(tls && (bearerTokens.length > 0 || mtls || jwtIssuers.length > 0)) && !proxied)
    throw invalid(
      proxy
        ? `http server: refusing to bind ${hostname} behind a proxy without auth: add auth.bearerTokens, auth.jwt or behindProxy.forwardedClientCert`
        : `http server: refusing to bind ${hostname}: a non-loopback address needs TLS (tls.cert, tls.key) and auth (auth.bearerTokens or auth.mtls), or behindProxy (a proxy in front terminates TLS) and auth`,
    );

  const publicUrl = o.publicUrl === undefined ? undefined : resolvePublicUrl(o.publicUrl);

  for (const [i, origin] of (o.allowedOrigins ?? []).entries())
    if (!URL.canParse(origin)) throw invalid(`http server: allowedOrigins[${i}] "${origin}" is not a scheme://host[:port] origin`);

  const out: ResolvedServerConfig = {
    hostname,
    port,
    path,
    mtls,
    bearerTokens,
    jwtIssuers,
    bearerPrincipals,
    responseMode: o.responseMode ?? "sse",
    limits,
    onsession: o.onsession,
    checkHeaders: o.checkHeaders,
    routes: o.routes ?? {},
    mounts: o.mounts ?? [],
    logger: o.logger ?? nullLogger,
    authorize: o.authorize,
  };
  if (o.responseMode !== undefined && o.responseMode !== "sse" && o.responseMode !== "json")
    throw invalid(`http server: responseMode must be "sse" or "json"`);
  if (o.adapter !== undefined) {
    if (o.adapter !== "bun" && o.adapter !== "node") throw invalid(`http server: adapter must be "bun" or "node"`);
    if (o.adapter === "bun" && !("Bun" in globalThis))
      throw invalid('http server: adapter "bun" needs the Bun runtime (this is Node): leave adapter out to serve with node:http');
    out.adapter = o.adapter;
  }
  if (tls) out.tls = tls;
  if (publicUrl) out.publicUrl = publicUrl;
  if (o.auth?.resourceMetadata) out.resourceMetadata = o.auth.resourceMetadata;
  if (o.allowedOrigins) out.allowedOrigins = o.allowedOrigins;
  if (o.allowedHosts) out.allowedHosts = o.allowedHosts;
  return out;
}

/** The limits over their defaults; a malformed one is refused naming its key. */
function resolveLimits(given: HttpServerLimits | undefined): Required<HttpServerLimits> {
  const parsed = v.safeParse(LimitsSchema, given ?? {});
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const key = issue?.path?.map((p) => String(p.key)).join(".") ?? "";
    throw invalid(`http server: limits.${key}: ${issue?.message ?? "invalid"}`);
  }
  return { ...DEFAULT_HTTP_LIMITS, ...withoutUndefined(parsed.output) };
}

type BearerTokenOption = NonNullable<NonNullable<StreamableHttpServerOptions["auth"]>["bearerTokens"]>[number];

/** The bearer tokens and, in the same order, their principals; a weak or malformed token is refused. */
function resolveBearerTokens(given: readonly BearerTokenOption[]): Pick<ResolvedServerConfig, "bearerTokens" | "bearerPrincipals"> {
  const entries = given.map((t) => (typeof t === "string" ? { token: t } : (t ?? { token: "" })));
  const bearerTokens = entries.map((e) => e.token);
  const bearerPrincipals = entries.map((e, i) => {
    if (e.name !== undefined && !TOKEN_NAME.test(e.name))
      throw invalid(`http server: auth.bearerTokens[${i}].name must be 1-64 letters, digits or -._#@`);
    if (e.role !== undefined && e.role !== "operator") throw invalid(`http server: auth.bearerTokens[${i}].role must be "operator"`);
    if (e.permissions !== undefined && !(Array.isArray(e.permissions) && e.permissions.every((p) => PERMISSIONS.has(p))))
      throw invalid(`http server: auth.bearerTokens[${i}].permissions must list "run", "status" or "operator"`);
    return { name: e.name ?? `bearer#${i}`, role: e.role, permissions: e.permissions };
  });
  for (const [i, t] of bearerTokens.entries()) {
    if (typeof t !== "string" || !TOKEN.test(t))
      throw invalid(`http server: auth.bearerTokens[${i}] must be a non-empty token of letters, digits and -._~+/`);
    if (t.length < MIN_TOKEN_LENGTH)
      throw invalid(`http server: auth.bearerTokens[${i}] is shorter than ${MIN_TOKEN_LENGTH} characters; use a random token`);
  }
  return { bearerTokens, bearerPrincipals };
}

/** Refuse a JWT issuer that is not https (but on loopback), symmetric algorithms, or malformed settings. */
function checkJwtIssuers(jwtIssuers: readonly JwtIssuerOptions[]): void {
  for (const [i, j] of jwtIssuers.entries()) {
    let issuerUrl: URL | undefined;
    try {
      issuerUrl = new URL(j.issuer);
    } catch {}
    if (!issuerUrl || (issuerUrl.protocol !== "https:" && !isLoopbackHost(issuerUrl.hostname)))
      throw invalid(`http server: auth.jwt[${i}].issuer must be an https:// URL (http:// only on loopback)`);
    if (j.algorithms?.some((a) => a === "none" || a.startsWith("HS")))
      throw invalid(`http server: auth.jwt[${i}].algorithms must be asymmetric (no none, no HS*)`);
    if (j.timeoutSeconds !== undefined && !(j.timeoutSeconds > 0 && j.timeoutSeconds <= 60))
      throw invalid(`http server: auth.jwt[${i}].timeoutSeconds must be more than 0 and at most 60`);
    if (j.unavailableSeconds !== undefined && !(j.unavailableSeconds >= 0))
      throw invalid(`http server: auth.jwt[${i}].unavailableSeconds must be 0 or more`);
    for (const [scope, ps] of Object.entries(j.scopePermissions ?? {}))
      if (!Array.isArray(ps) || !ps.every((p) => PERMISSIONS.has(p)))
        throw invalid(`http server: auth.jwt[${i}].scopePermissions["${scope}"] must list "run", "status" or "operator"`);
    const intro = j.introspection;
    if (intro) {
      if (!intro.clientId || !intro.clientSecret)
        throw invalid(
          `http server: auth.jwt[${i}].introspection needs clientId and clientSecret (this server's credentials at the issuer)`,
        );
      const endpoint = intro.endpoint !== undefined && URL.canParse(intro.endpoint) ? new URL(intro.endpoint) : undefined;
      if (intro.endpoint !== undefined && (!endpoint || (endpoint.protocol !== "https:" && !isLoopbackHost(endpoint.hostname))))
        throw invalid(`http server: auth.jwt[${i}].introspection.endpoint must be an https:// URL (http:// only on loopback)`);
    }
  }
}

/** The public URL of the endpoint: an absolute http(s) URL without query or fragment. */
function resolvePublicUrl(given: string): URL {
  const publicUrl = URL.canParse(given) ? new URL(given) : undefined;
  if (!publicUrl || (publicUrl.protocol !== "https:" && publicUrl.protocol !== "http:") || publicUrl.search || publicUrl.hash)
    throw invalid(
      `http server: publicUrl "${given}" must be an absolute http(s) URL without ?query or #fragment, e.g. https://agentd.example.com/mcp`,
    );
  return publicUrl;
}
