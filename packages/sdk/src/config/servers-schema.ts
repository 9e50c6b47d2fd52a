/**
 * The peers of `agentd.json`: `mcpServers` entries (a stdio child or a Streamable HTTP server, with OAuth and
 * the per-server switches, sampling among them) and `a2aAgents` entries (remote A2A agents offered as tools).
 * A server entry is checked field by field first, so a mistake is named at its field.
 */
import * as v from "valibot";
import { DialectSchema } from "./model-schema.ts";
import { duration, nonNegative, positiveInt, stringMap } from "./schema-values.ts";
import { entryProblem } from "./server-entry.ts";

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

/**
 * Which of one server's tools the agent uses: `include` (names or `*` globs; absent, all of them) less
 * `exclude` (which wins). A tool left out is neither offered to the model nor callable.
 */
export const ServerToolsSchema = v.strictObject({
  /** Only these tools (names as the server lists them, or `*` globs); absent: every tool. */
  include: v.optional(v.array(v.pipe(v.string(), v.minLength(1, "a tool name or glob")))),
  /** Never these tools (names or `*` globs), even when `include` names them. */
  exclude: v.optional(v.array(v.pipe(v.string(), v.minLength(1, "a tool name or glob")))),
});

/** An MCP server started as a child process speaking stdio (`command`, `args`, `env`, `cwd`), with the per-server switches (disabled, required, version negotiation, sampling, prompts, timeouts, tool filter). */
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
  /** Which of this server's tools the agent uses (`include`, less `exclude`); absent: all of them. */
  tools: v.optional(ServerToolsSchema),
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

/** An MCP server reached over Streamable HTTP (a `url`), with headers, OAuth, and the per-server switches a stdio entry has (disabled, required, version negotiation, sampling, prompts, timeouts, tool filter). */
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
  /** See the stdio entry's `tools`. */
  tools: v.optional(ServerToolsSchema),
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
