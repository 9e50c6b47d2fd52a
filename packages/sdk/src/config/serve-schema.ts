/**
 * The `serve` block of `agentd.json`: the HTTP listener, TLS, and who may do what on agentd's own MCP (and
 * A2A) surface.
 */
import * as v from "valibot";
import { duration, positiveInt } from "./schema-values.ts";

/** What a principal of `serve` may do. */
const PermissionSchema = v.picklist(["run", "status", "operator"]);

/** The `serve` block: the HTTP listener, TLS, and who may do what on agentd's own MCP (and A2A) surface. */
export const ServeSchema = v.strictObject({
  http: v.optional(v.string()),
  tls: v.optional(v.strictObject({ cert: v.string(), key: v.string(), ca: v.optional(v.string()) })),
  auth: v.optional(
    v.strictObject({
      tokensFile: v.optional(v.string()),
      tokensEnv: v.optional(v.string()),
      mtls: v.optional(v.boolean()),
      /** A file of bearer tokens (one a line) whose holders are operators: they see every principal's runs. */
      operatorTokensFile: v.optional(v.string()),
      /** What the tokens of tokensFile / tokensEnv may do. Default ["run", "status"]. */
      tokenPermissions: v.optional(v.array(PermissionSchema)),
      /** A file of bearer tokens (one a line) whose holders may only read status. */
      statusTokensFile: v.optional(v.string()),
      /** OAuth: JWT access tokens from these issuers are accepted (audience: the public URL). */
      jwt: v.optional(
        v.array(
          v.strictObject({
            issuer: v.pipe(v.string(), v.url("serve.auth.jwt[].issuer must be the issuer URL, e.g. https://login.example.com")),
            jwksUri: v.optional(v.pipe(v.string(), v.url())),
            requiredScopes: v.optional(v.array(v.string())),
            operatorScope: v.optional(v.string()),
            algorithms: v.optional(
              v.array(v.picklist(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"])),
            ),
            jwksCooldownSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
            /** JWT `typ` header values accepted (RFC 9068 §4); default ["at+jwt"] (`application/at+jwt` too). */
            accessTokenTypes: v.optional(v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1))),
            /** Bound of each request to the issuer (metadata, JWKS, introspection), seconds; default 5. */
            timeoutSeconds: v.optional(v.pipe(v.number(), v.gtValue(0), v.maxValue(60))),
            /** After the issuer failed to answer, its tokens get 503 without asking it this long (seconds); default 10. */
            unavailableSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
            /** What each scope allows: { "agentd:run": ["run", "status"], … }; unset, every valid token runs and reads status. */
            scopePermissions: v.optional(v.record(v.string(), v.array(PermissionSchema))),
            /** RFC 7662: check this issuer's tokens at its introspection endpoint (opaque tokens). */
            introspection: v.optional(
              v.strictObject({
                endpoint: v.optional(v.pipe(v.string(), v.url())),
                clientId: v.pipe(v.string(), v.minLength(1)),
                clientSecretEnv: v.optional(v.string()),
                clientSecretFile: v.optional(v.string()),
                cacheSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
                negativeCacheSeconds: v.optional(v.pipe(v.number(), v.minValue(0))),
              }),
            ),
          }),
        ),
      ),
    }),
  ),
  allowedOrigins: v.optional(v.array(v.string())),
  /**
   * A proxy in front terminates TLS (an ingress controller, a load balancer, a mesh sidecar): serve plain HTTP
   * on a non-loopback address, still with auth, believing forwarded headers from these addresses only.
   */
  behindProxy: v.optional(
    v.strictObject({
      /** The proxies' peer addresses: IP addresses or CIDR ranges, e.g. ["10.0.0.0/8"]. */
      trustedProxies: v.pipe(
        v.array(v.pipe(v.string(), v.minLength(1))),
        v.minLength(1, "serve.behindProxy.trustedProxies must name at least one address or CIDR range"),
      ),
      /** Authenticate by the client certificate the mesh forwards in X-Forwarded-Client-Cert (Envoy, Istio). */
      forwardedClientCert: v.optional(v.boolean()),
    }),
  ),
  /** The MCP endpoint URL as clients reach it (advertised in RFC 9728 metadata and 401 challenges). */
  publicUrl: v.optional(v.pipe(v.string(), v.url("serve.publicUrl must be an absolute URL such as https://agentd.example.com/mcp"))),
  /** Principal ids with the operator role, e.g. "local", "mtls:CN=alice,O=ops", "bearer:bearer#0". */
  operators: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** A2A v1.0 on the HTTP listener (agent card, /a2a, /a2a/rest): true, or what the card says. Off by default. */
  a2a: v.optional(
    v.union([
      v.boolean(),
      v.strictObject({
        name: v.optional(v.pipe(v.string(), v.minLength(1))),
        description: v.optional(v.pipe(v.string(), v.minLength(1))),
        /** Webhook hosts push notifications may go to besides loopback (`host` or `host:port`). */
        pushAllowedHosts: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
      }),
    ]),
  ),
  /** The operator's console at /console on the HTTP listener (docs/console.md). Off by default. */
  console: v.optional(v.boolean()),
  /** Session and replay limits of the HTTP server (see docs/serving.md, "Limits"). */
  limits: v.optional(
    v.strictObject({
      maxSessions: v.optional(positiveInt),
      maxSessionsPerPrincipal: v.optional(positiveInt),
      maxA2aStreamsPerPrincipal: v.optional(positiveInt),
      requestBodyTimeoutMs: v.optional(positiveInt),
      initializeTimeoutMs: v.optional(positiveInt),
      sessionIdleMs: v.optional(positiveInt),
      eventStoreEvents: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      eventStoreBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      eventStoreTotalBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
  /** Finished runs kept for agent://runs/{runId} and run-id idempotency, per principal inside a total (oldest finished go first). */
  runHistory: v.optional(
    v.strictObject({
      maxRuns: v.optional(positiveInt),
      maxBytes: v.optional(positiveInt),
      maxTotalBytes: v.optional(positiveInt),
      /** With `durability.store`: the fleet's history in the store, per principal (default 100 runs, 8 MiB, 7 days). */
      shared: v.optional(
        v.strictObject({
          maxRuns: v.optional(v.pipe(positiveInt, v.maxValue(1000, "at most 1000"))),
          maxBytes: v.optional(positiveInt),
          maxAge: v.optional(duration),
        }),
      ),
    }),
  ),
  /** With capabilities.tasks on: each served tool's execution.taskSupport (default agent.run and subagent.spawn "optional"). */
  taskSupport: v.optional(v.record(v.string(), v.picklist(["optional", "required", "forbidden"]))),
  /**
   * GET /metrics (Prometheus text format) on the HTTP listener: true (operators scrape with their credentials),
   * or a bearer token of its own from an environment variable or a file. Off by default.
   */
  metrics: v.optional(
    v.union([
      v.boolean(),
      v.strictObject({
        /** An environment variable holding the scrapers' bearer token. */
        tokenEnv: v.optional(v.pipe(v.string(), v.minLength(1))),
        /** A file holding the scrapers' bearer token (its first line). */
        tokenFile: v.optional(v.pipe(v.string(), v.minLength(1))),
      }),
    ]),
  ),
});
