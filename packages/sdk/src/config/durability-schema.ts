/**
 * The `durability` block of `agentd.json`: the one store for everything durable and each part's own
 * settings (claims, checkpoint, OAuth tokens, schedules, served runs; docs/durability.md).
 */
import * as v from "valibot";
import { duration, positiveInt } from "./schema-values.ts";
import { McpServerConfigSchema } from "./servers-schema.ts";

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
  /** Conversations that continue (`agentd run --continue`, `agent.run({ conversation })`): where they are kept and their bounds (docs/conversations.md). */
  conversations: v.optional(
    v.strictObject({
      /** The store, as an MCP server entry (default: durability.store, else the local state directory). */
      store: v.optional(McpServerConfigSchema),
      /** Tokens a conversation may take in a request, as the model counts them; older whole turns are dropped past it (default 64000). */
      maxTokens: v.optional(positiveInt),
      /** Past maxTokens: "drop" the oldest whole turns (default), or "summarise" them first — the model writes a summary kept in their place (one more request, counted in the run's usage). */
      growth: v.optional(v.picklist(["drop", "summarise"])),
      /** JSON bytes one conversation may take as stored (default 1048576). */
      maxBytes: v.optional(v.pipe(v.number(), v.integer("a whole number"), v.minValue(1024, "at least 1024"))),
      /** Conversations kept per principal; starting one more deletes the least recently updated (default 100). */
      maxConversations: v.optional(positiveInt),
      /** How long a conversation not continued is kept (default 30d). */
      retention: v.optional(duration),
    }),
  ),
});
