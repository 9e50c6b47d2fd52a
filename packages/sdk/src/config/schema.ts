/**
 * The agentd configuration (`agentd.json`), as one valibot schema. The file accepts the ecosystem's usual
 * `mcpServers` shape (`command`/`args`/`env`/`cwd`, or `url`/`headers`). Unknown top-level keys are
 * rejected so a typo is caught rather than silently ignored.
 */
import * as v from "valibot";
import { DURATION_FORMS, durationProblem, parseDuration } from "./duration.ts";
import { entryProblem } from "./server-entry.ts";
import { PromptsConfigSchema } from "./prompts-schema.ts";

const duration = v.pipe(
  v.union([v.string(), v.number()], `expected ${DURATION_FORMS}`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (dataset.typed && parseDuration(dataset.value) === undefined) addIssue({ message: durationProblem(dataset.value) });
  }),
  v.transform((d) => parseDuration(d) as number),
);
const positiveInt = v.pipe(v.number(), v.integer("a whole number"), v.minValue(1, "at least 1"));
const nonNegative = v.pipe(v.number(), v.minValue(0, "0 or more"));
const stringMap = v.record(v.string(), v.string());

/** Which LLM dialect the model endpoint speaks. */
export const DialectSchema = v.picklist(
  ["openai", "responses", "anthropic", "gemini"],
  'one of "openai", "responses", "anthropic", "gemini"',
);

/** The `model` block: the endpoint (`intelligence`), dialect, model name, where the API key comes from, prices, reasoning and prompt-cache settings. */
export const ModelConfigSchema = v.strictObject({
  /** The model endpoint URL (OpenAI-compatible base such as http://127.0.0.1:11434/v1, or the provider's). */
  intelligence: v.optional(v.pipe(v.string(), v.url("a URL such as http://127.0.0.1:11434/v1"))),
  dialect: v.optional(DialectSchema),
  name: v.optional(v.pipe(v.string(), v.minLength(1, "a model name"))),
  /** Name of the environment variable holding the API key (the key itself never goes in the file). */
  apiKeyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"))),
  /** Whether the model calls tools natively (default true); false uses the JSON action shape. */
  nativeTools: v.optional(v.boolean()),
  /** Per-request timeout. */
  timeout: v.optional(duration),
  maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10))),
  maxOutputTokens: v.optional(positiveInt),
  temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(2))),
  /** Prices in USD per million tokens, for the cost budget; cache reads/writes and reasoning may have their own. */
  prices: v.optional(
    v.strictObject({
      inputPerMTokUsd: nonNegative,
      outputPerMTokUsd: nonNegative,
      cacheReadPerMTokUsd: v.optional(nonNegative),
      cacheWritePerMTokUsd: v.optional(nonNegative),
      reasoningPerMTokUsd: v.optional(nonNegative),
    }),
  ),
  /** Thinking / reasoning: on or off, a token budget, adaptive, an effort, and (openai) how reasoning goes back. */
  thinking: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      budgetTokens: v.optional(positiveInt),
      adaptive: v.optional(v.boolean()),
      effort: v.optional(
        v.picklist(["minimal", "low", "medium", "high", "xhigh", "max"], 'one of "minimal", "low", "medium", "high", "xhigh", "max"'),
      ),
      passBack: v.optional(v.picklist(["none", "reasoning_content", "reasoning"], 'one of "none", "reasoning_content", "reasoning"')),
    }),
  ),
  /**
   * responses: store responses at the provider and continue each conversation with `previous_response_id`
   * (default false: nothing stored, the whole conversation sent, reasoning passed back encrypted).
   */
  previousResponseId: v.optional(v.boolean()),
  /** Anthropic prompt-cache breakpoints (on by default) and their lifetime. */
  promptCache: v.optional(
    v.strictObject({ enabled: v.optional(v.boolean()), ttl: v.optional(v.picklist(["5m", "1h"], 'one of "5m", "1h"')) }),
  ),
  headers: v.optional(stringMap),
});

/**
 * How a server's MCP revision is picked: "auto" probes with `server/discover` and speaks 2026-07-28 when the
 * server does, else falls back to `initialize`; "initialize" (the default) uses the `initialize` handshake only.
 * "legacy" is the older spelling of "initialize", still accepted (read as "initialize").
 */
const versionNegotiation = v.pipe(
  v.picklist(["auto", "initialize", "legacy"], '"auto" or "initialize"'),
  v.transform((mode): "auto" | "initialize" => (mode === "legacy" ? "initialize" : mode)),
);

const unit = v.pipe(v.number(), v.minValue(0, "0 to 1"), v.maxValue(1, "0 to 1"));

/** Servicing a server's sampling requests with our model: true, false, or the policy (docs/configuration.md). */
export const SamplingConfigSchema = v.union(
  [
    v.boolean(),
    v.strictObject({
      /** Declare `sampling.tools`: requests may carry tools (tool-use sampling). */
      tools: v.optional(v.boolean()),
      /** Per-server budget per window; absent limits are unlimited. */
      budget: v.optional(
        v.strictObject({
          calls: v.optional(positiveInt),
          inputTokens: v.optional(positiveInt),
          outputTokens: v.optional(positiveInt),
          costUsd: v.optional(nonNegative),
          window: v.optional(duration),
        }),
      ),
      /** Models a request's `modelPreferences` may pick; the agent's model otherwise. */
      routes: v.optional(
        v.array(
          v.strictObject({
            /** The model name (sent to the provider); the rest of the model block is the agent's unless given. */
            name: v.pipe(v.string(), v.minLength(1)),
            intelligence: v.optional(v.string()),
            dialect: v.optional(DialectSchema),
            /** Names this route answers for in a request's hints (besides `name`). */
            match: v.optional(v.array(v.string())),
            ratings: v.optional(v.strictObject({ cost: v.optional(unit), speed: v.optional(unit), intelligence: v.optional(unit) })),
          }),
        ),
      ),
    }),
  ],
  "true, false or an object with tools, budget, routes",
);

/** An MCP server started as a child process speaking stdio (`command`, `args`, `env`, `cwd`), with the per-server switches (disabled, required, version negotiation, sampling, prompts, timeouts). */
export const StdioServerSchema = v.strictObject({
  type: v.optional(v.literal("stdio")),
  command: v.pipe(v.string(), v.minLength(1, "a command to run")),
  args: v.optional(v.array(v.string())),
  env: v.optional(stringMap),
  cwd: v.optional(v.string()),
  disabled: v.optional(v.boolean()),
  /** Whether the run fails when this server cannot be reached (default true). */
  required: v.optional(v.boolean()),
  /**
   * How the server's MCP revision is picked: "auto" probes with `server/discover` and speaks 2026-07-28
   * when the server does, else falls back to `initialize`; "initialize" (default) uses `initialize` only
   * ("legacy", its older spelling, is read as "initialize").
   */
  versionNegotiation: v.optional(versionNegotiation),
  /** This server's sampling requests: overrides `capabilities.sampling` (false: never serviced). */
  sampling: v.optional(SamplingConfigSchema),
  /** Whether this server's prompts are used (`run --prompt`, `agentd mcp … prompts`, list_changed); default true. */
  prompts: v.optional(v.boolean()),
  /** How long a request to this server may go without a response or progress (default limits.mcpTimeout, else 60s). */
  timeout: v.optional(duration),
  /** The most a request to this server may take, progress or not (default limits.mcpMaxTotalTimeout, else 1h). */
  maxTotalTimeout: v.optional(duration),
});

/**
 * OAuth 2.1 for a remote server (MCP authorization spec). Secrets only by reference: an environment variable
 * or a file, never inline.
 */
export const OAuthSchema = v.strictObject({
  /** A pre-registered client id (else a Client ID Metadata Document URL, else dynamic registration). */
  clientId: v.optional(v.pipe(v.string(), v.minLength(1))),
  clientSecretEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable"))),
  clientSecretFile: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** PKCS#8 PEM private key for private_key_jwt client authentication. */
  privateKeyFile: v.optional(v.pipe(v.string(), v.minLength(1))),
  signingAlg: v.optional(v.picklist(["ES256", "RS256"])),
  clientMetadataUrl: v.optional(v.pipe(v.string(), v.url(), v.startsWith("https://", "a Client ID Metadata Document URL is https://"))),
  scopes: v.optional(v.array(v.pipe(v.string(), v.regex(/^\S+$/, "one scope, no spaces")))),
  grant: v.optional(v.picklist(["authorization_code", "client_credentials", "identity_assertion"])),
  clientName: v.optional(v.string()),
  /** The enterprise identity provider of the `identity_assertion` grant (enterprise-managed authorization). */
  identityAssertion: v.optional(
    v.strictObject({
      /** The IdP's token endpoint (RFC 8693 token exchange). */
      tokenEndpoint: v.pipe(v.string(), v.url("the identity provider's token endpoint URL")),
      /** agentd's client id at the IdP, and the variable holding its secret. */
      clientId: v.optional(v.pipe(v.string(), v.minLength(1))),
      clientSecretEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable"))),
      /** Where the person's ID token is: an environment variable or a file (read at each grant). */
      idTokenEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable"))),
      idTokenFile: v.optional(v.pipe(v.string(), v.minLength(1))),
    }),
  ),
});

/** An MCP server reached over Streamable HTTP (a `url`), with headers, OAuth, and the per-server switches a stdio entry has (disabled, required, version negotiation, sampling, prompts, timeouts). */
export const HttpServerSchema = v.strictObject({
  /** Streamable HTTP, in any of the spellings clients use (`streamableHttp` is Cline's). */
  type: v.optional(v.picklist(["http", "streamable-http", "streamableHttp"])),
  url: v.pipe(v.string(), v.url("an http(s) URL such as https://tools.example/mcp")),
  headers: v.optional(stringMap),
  oauth: v.optional(OAuthSchema),
  disabled: v.optional(v.boolean()),
  required: v.optional(v.boolean()),
  /** See the stdio entry's `versionNegotiation`. */
  versionNegotiation: v.optional(versionNegotiation),
  /** See the stdio entry's `sampling`. */
  sampling: v.optional(SamplingConfigSchema),
  /** See the stdio entry's `prompts`. */
  prompts: v.optional(v.boolean()),
  /** See the stdio entry's `timeout`. */
  timeout: v.optional(duration),
  /** See the stdio entry's `maxTotalTimeout`. */
  maxTotalTimeout: v.optional(duration),
});

/** One `mcpServers` entry: a stdio child (`command`) or a Streamable HTTP server (`url`). */
export const McpServerConfigSchema = v.pipe(
  v.unknown(),
  // Say which field is wrong (SSE transport, a typo, another tool's setting) before the shape check would
  // only say "not an MCP server".
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? entryProblem(dataset.value) : undefined;
    if (!problem) return;
    const value = dataset.value as Record<string, unknown>;
    const at = problem.field;
    addIssue({
      message: problem.message,
      ...(at === undefined ? {} : { path: [{ type: "object", origin: "value", input: value, key: at, value: value[at] }] }),
    });
  }),
  // The fields say which kind it is, so a bad value is reported by that kind's schema, at its field.
  v.lazy((entry) =>
    entry !== null && typeof entry === "object" && "command" in entry
      ? StdioServerSchema
      : entry !== null && typeof entry === "object" && "url" in entry
        ? HttpServerSchema
        : v.union([StdioServerSchema, HttpServerSchema], 'an MCP server: {"command": …, "args": […]} or {"url": "https://…/mcp"}'),
  ),
);

/** The name of a server (the `fs` of `fs/read_file`). */
export const SERVER_NAME = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]+$/, "server names use letters, digits, _ . -"));

/** One `a2aAgents` entry: a remote A2A v1.0 agent offered to the model as the tool `a2a:NAME`. */
export const A2aAgentConfigSchema = v.strictObject({
  /** The agent's URL (its card is read at URL/.well-known/agent-card.json), or the URL of its card (…/x.json). */
  url: v.pipe(v.string(), v.url("an http(s) URL such as https://agents.example/research")),
  /** Headers sent with every request, e.g. {"Authorization": "Bearer ${RESEARCH_TOKEN}"}. */
  headers: v.optional(stringMap),
  /** Whether a run fails when the agent cannot be reached (default true); false leaves its tool out meanwhile. */
  required: v.optional(v.boolean()),
  /** The binding to use when the card offers both (default "JSONRPC"). */
  binding: v.optional(v.picklist(["JSONRPC", "HTTP+JSON"], '"JSONRPC" or "HTTP+JSON"')),
  /** Follow its tasks by push notifications to a webhook on 127.0.0.1 when its card offers them (default false). */
  push: v.optional(v.boolean()),
});

/** The budgets of one run: turns, tokens, cost, a deadline, and the MCP request timeouts. */
export const LimitsSchema = v.strictObject({
  maxTurns: v.optional(positiveInt),
  maxTokens: v.optional(positiveInt),
  deadline: v.optional(duration),
  maxCostUsd: v.optional(nonNegative),
  /** Every MCP server's request timeout without a response or progress, unless its entry sets `timeout` (default 60s). */
  mcpTimeout: v.optional(duration),
  /** Every MCP server's ceiling on one request, progress or not, unless its entry sets `maxTotalTimeout` (default 1h). */
  mcpMaxTotalTimeout: v.optional(duration),
});

/** Which of a server's tools the model may see (`allow`: names or `*` globs). */
export const ScopeSchema = v.strictObject({ allow: v.optional(v.array(v.string())) });

const concurrency = v.union([
  v.picklist(["skip", "queue"]),
  v.pipe(v.string(), v.regex(/^parallel:\d+$/, '"skip", "queue" or "parallel:N"')),
]);

/** A conversation each run of a trigger continues (docs/conversations.md): the same id rules as `agentd run --conversation`. */
const conversationName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit"),
);

/** A trigger on an MCP resource (`server`, `uri`): a run of `instruction` starts when the server reports the resource updated (coalesced, or polled when the server cannot notify). */
export const SubscriptionTriggerSchema = v.strictObject({
  server: v.string(),
  uri: v.string(),
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  coalesce: v.optional(duration),
  concurrency: v.optional(concurrency),
  /** Poll this often when the server cannot push updates. */
  pollInterval: v.optional(duration),
});

/** A cron trigger: the schedule (`cron`), its time zone (`tz`), what to do with missed ticks (`catchUp`), the instruction, and how overlapping runs are handled. */
export const ScheduleTriggerSchema = v.strictObject({
  cron: v.string(),
  tz: v.optional(v.string()),
  catchUp: v.optional(v.union([v.picklist(["none", "latest"]), v.pipe(v.string(), v.regex(/^all(:\d+)?$/))])),
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  concurrency: v.optional(concurrency),
});

/** A trigger that runs `instruction` every `every` (a duration such as `"5m"`), at most `maxRuns` times when set. */
export const IntervalTriggerSchema = v.strictObject({
  every: duration,
  instruction: v.string(),
  /** Each run continues this conversation, so it sees what the earlier runs did (docs/conversations.md). */
  conversation: v.optional(conversationName),
  maxRuns: v.optional(positiveInt),
});

/** The `triggers` block: resource subscriptions, cron schedules, an interval, and where the cron job store lives. */
export const TriggersSchema = v.strictObject({
  subscriptions: v.optional(v.array(SubscriptionTriggerSchema)),
  schedules: v.optional(v.array(ScheduleTriggerSchema)),
  interval: v.optional(IntervalTriggerSchema),
  /** Where schedule state (last fire per schedule) is kept, for the time-zone cron's catch-up across restarts. */
  jobStore: v.optional(v.string()),
  /** Runs may subscribe the agent to resources themselves (tools agent.subscribe / agent.unsubscribe). Absent: not offered. */
  selfSubscribe: v.optional(
    v.strictObject({
      /** Most self-arranged subscriptions at once (default 8). */
      max: v.optional(positiveInt),
      /** The servers runs may subscribe to (default: every configured server). */
      servers: v.optional(v.array(SERVER_NAME)),
      /** Poll this often a server that cannot push updates (else such a server is refused). */
      pollInterval: v.optional(duration),
    }),
  ),
});

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

/** The switches (docs/configuration.md). Absent = the default: off. */
export const CapabilitiesSchema = v.strictObject({
  /** Servicing inbound sampling with our own model (default false: -32601); per server in mcpServers.X.sampling. */
  sampling: v.optional(SamplingConfigSchema),
  /** Roots declared to every MCP server (paths or file:// URIs); empty or absent = not declared. */
  roots: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** Elicitation: "off" (default, not declared, -32601), a policy answering every elicitation, or "operator" (asked over A2A; docs/a2a.md). */
  elicitation: v.optional(
    v.union(
      [
        v.picklist(["decline", "cancel", "defaults", "off", "operator"]),
        v.strictObject({
          policy: v.picklist(["decline", "cancel", "defaults", "answers"], '"decline", "cancel", "defaults" or "answers"'),
          /** For "answers": field name → value, checked against each request's schema. */
          answers: v.optional(v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]))),
          /** URL mode: "log" declares it, accepts and logs the URL for an operator; absent: refused. */
          url: v.optional(v.literal("log")),
        }),
      ],
      '"off", "decline", "cancel", "defaults", "operator" or { policy, answers, url }',
    ),
  ),
  /** Tasks (client side): task-augmented tools/call for tools that require it. */
  tasks: v.optional(v.boolean()),
  /** The supervisor checkpoint in an MCP store (durability.checkpoint); default false = stateless rebuild + reconcile. */
  checkpoint: v.optional(v.boolean()),
  /** Reactivity over HTTP: server push on the GET stream (default false: HTTP servers request/response only). */
  httpReactivity: v.optional(v.boolean()),
  /** Removed: the gemini adapter is used when `model.dialect` is "gemini", and only then. */
  gemini: v.optional(v.never('removed: choosing model.dialect "gemini" is the switch; delete this key')),
  /** Server notifications: the self-MCP declares logging and emits notifications/message and progress. */
  serverNotifications: v.optional(v.boolean()),
  /** Cron: "utc" (default) 5-field UTC cron, no tz/catch-up/job store; "timezones" the richer cron. */
  cron: v.optional(
    v.pipe(
      v.string('"utc" or "timezones"'),
      // The old values named planning codes; the line never repeats the value it got (see format-issue.ts).
      v.check(
        (s) => !/^v[12]$/.test(s),
        'renamed: the 5-field UTC cron is now "utc", the richer one (time zones, catch-up, job store) "timezones"',
      ),
      v.picklist(["utc", "timezones"], '"utc" (5-field, UTC) or "timezones" (time zones, catch-up, job store)'),
    ),
  ),
});

/** Durable work across replicas (docs/durability.md). Absent = today's behaviour: nothing is claimed. */
export const DurabilitySchema = v.strictObject({
  /**
   * The one store for everything durable (an MCP server entry: the URL of an `agentd store --http`, or a
   * stdio store command): run claims, the checkpoint, OAuth tokens, the cron job store, served run ids.
   * Each part's own `store` wins over it.
   */
  store: v.optional(McpServerConfigSchema),
  /** Runs claimed once across replicas: each triggered run's id is claimed in this MCP store with a lease (on whenever `store` is set). */
  claims: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store; e.g. `{"command": "agentd", "args": ["store", "--redis", "redis://…"]}`). */
      store: v.optional(McpServerConfigSchema),
      /** How long a claim outlives a holder that stopped renewing it (default 30s). */
      lease: v.optional(duration),
      /** This replica's name in claims (default: a random id per process; e.g. the pod name). */
      holder: v.optional(v.pipe(v.string(), v.minLength(1))),
      /** How long a succeeded triggered run's claim answers "already done" before it is deleted (default 7d). */
      retention: v.optional(duration),
    }),
  ),
  /** With capabilities.checkpoint: where the supervisor checkpoint is written (docs/durability.md). */
  checkpoint: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store, else durability.claims.store). */
      store: v.optional(McpServerConfigSchema),
      /** Whose checkpoint this is: stable across restarts (default: claims.holder, else $RUN_ID, else "agentd"). */
      identity: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,120}$/, "letters, digits and . _ : @ - (starting with a letter or digit)"),
        ),
      ),
      /** Changes within this window are written as one (default 100ms). */
      debounce: v.optional(duration),
      /** Off by default: triggered runs' conversations are saved after each tool turn, so a re-run of the same run id resumes mid-conversation. */
      resumeConversations: v.optional(
        v.strictObject({
          /** Largest conversation saved, in bytes of JSON (default 262144); a larger one is not saved. */
          maxBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
          /** How long a saved conversation can be resumed from (default 1h). */
          ttl: v.optional(duration),
        }),
      ),
    }),
  ),
  /** OAuth client tokens in this MCP store instead of the local token file (docs/remote-servers.md, "Token store"). */
  oauthTokens: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store, else durability.claims.store). */
      store: v.optional(McpServerConfigSchema),
      /** The environment variable holding the encryption key (default AGENTD_OAUTH_STORE_KEY; unset = stored in clear). */
      keyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"))),
    }),
  ),
  /** The cron job store (time-zone cron's last fire per schedule) in an MCP store instead of `triggers.jobStore`'s file (on whenever `store` is set). */
  schedules: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store). */
      store: v.optional(McpServerConfigSchema),
      /** The agent the records belong to: every replica of one agent shares it (default "agentd"). */
      identity: v.optional(
        v.pipe(
          v.string(),
          v.regex(/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,80}$/, "letters, digits and . _ : @ - (starting with a letter or digit)"),
        ),
      ),
    }),
  ),
  /** Conversations that continue (`agentd run --continue`, `agent.run({ conversation })`): where they are kept and their bounds (docs/conversations.md). */
  conversations: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store, else the local state directory). */
      store: v.optional(McpServerConfigSchema),
      /** Tokens a conversation may take in a request, as the model counts them; older whole turns are dropped past it (default 64000). */
      maxTokens: v.optional(positiveInt),
      /** JSON bytes one conversation may take as stored (default 1048576). */
      maxBytes: v.optional(v.pipe(v.number(), v.integer("a whole number"), v.minValue(1024, "at least 1024"))),
      /** Conversations kept per principal; starting one more deletes the least recently updated (default 100). */
      maxConversations: v.optional(positiveInt),
      /** How long a conversation not continued is kept (default 30d). */
      retention: v.optional(duration),
    }),
  ),
  /** Served runs (`agent.run`, A2A `SendMessage`) with the same run id run once across replicas (on whenever `store` is set). */
  servedRuns: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store). */
      store: v.optional(McpServerConfigSchema),
      /** How long a second caller waits for the answer of a run another replica is running (default 30s). */
      wait: v.optional(duration),
      /** How long a finished served run answers "already done" (its claim and answer kept) before both are deleted (default 24h). */
      retention: v.optional(duration),
    }),
  ),
});

/** The whole `agentd.json` file: the model, instructions, MCP servers, A2A agents, limits, triggers, serving, capabilities and durability. Unknown keys are refused. Parse with `parseConfig` to get one clear line per mistake. */
export const ConfigSchema = v.strictObject({
  $schema: v.optional(v.string()),
  model: v.optional(ModelConfigSchema),
  instructions: v.optional(v.string()),
  mcpServers: v.optional(v.record(SERVER_NAME, McpServerConfigSchema)),
  /** Remote A2A agents the model may delegate to (tools `a2a:NAME`; docs/a2a.md). */
  a2aAgents: v.optional(v.record(SERVER_NAME, A2aAgentConfigSchema)),
  limits: v.optional(LimitsSchema),
  scope: v.optional(ScopeSchema),
  triggers: v.optional(TriggersSchema),
  serve: v.optional(ServeSchema),
  capabilities: v.optional(CapabilitiesSchema),
  /** Prompts `agentd serve` offers (prompts/list, prompts/get, completion/complete; agent.run `{ prompt, arguments }`). */
  prompts: v.optional(PromptsConfigSchema),
  durability: v.optional(DurabilitySchema),
  /** Where traces are read: `traceUrl` links a run's trace id in the console to the OTLP backend's page (docs/console.md). */
  telemetry: v.optional(
    v.strictObject({
      traceUrl: v.optional(
        v.pipe(
          v.string(),
          v.check(
            (t) => /^https?:\/\/[^\s{}]+/.test(t) && t.includes("{traceId}") && URL.canParse(t.replaceAll("{traceId}", "0")),
            "an http(s) URL template with {traceId} where the trace id goes (docs/console.md)",
          ),
        ),
      ),
    }),
  ),
  subagents: v.optional(
    v.strictObject({
      maxDepth: v.optional(positiveInt),
      maxChildren: v.optional(positiveInt),
      maxRestarts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
});

// The output types (`AgentdConfig` and its parts) are declared in ./types.ts, generated from these schemas by
// scripts/declared-types.ts and checked equal to what valibot infers (./types.types.test.ts).
export type { AgentdConfig, McpServerConfig, ModelConfig } from "./types.ts";
