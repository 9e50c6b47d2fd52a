/**
 * `durability.oauthTokens` → the OAuth client {@link TokenStore} in an MCP store (`agentd store`), instead of
 * the local 0600 token file. One MCP client to the store per agent (or per `agentd auth` command), opened on
 * the first token read or write — a run whose servers have a token cached in memory, or no `oauth` block,
 * never starts it — and closed by `close()`. Tokens are encrypted with the key from `keyEnv` (default
 * `AGENTD_OAUTH_STORE_KEY`, as for the file) before they leave the process.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import { McpStoreTokenStore } from "../../store/oauth-token-store.ts";
import { storeKeyFrom, type TokenStore } from "../../transport/http-client/oauth/token-store.ts";
import { AgentdError } from "../../wire/errors.ts";
import { durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** A token store with a `close()` for its store connection. */
export interface ConfiguredTokenStore extends TokenStore {
  close(): Promise<void>;
}

/** What `durability.oauthTokens` names, for messages. */
const WHERE = "the OAuth token store (durability.oauthTokens.store)";

/**
 * The token store `config.durability.oauthTokens` (or `durability.store` alone) asks for, or undefined when
 * neither is set (the token file). Throws `E_CONFIG_INVALID` when no store is named for it.
 */
export function tokenStoreFromConfig(
  config: AgentdConfig,
  logger: Logger,
  env: Record<string, string | undefined> = process.env,
): ConfiguredTokenStore | undefined {
  if (!durablePartOn(config, "oauthTokens")) return undefined;
  const c = config.durability?.oauthTokens ?? {};
  const entry = durableStoreEntry(config, "oauthTokens");
  if (!entry)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      'durability.oauthTokens needs a store: set durability.store (e.g. {"command": "agentd", "args": ["store", "--dir", "/var/lib/agentd"]}) or durability.oauthTokens.store',
    );
  const keyEnv = c.keyEnv ?? "AGENTD_OAUTH_STORE_KEY";
  const connection = storeConnection("oauth-token-store", entry, logger);
  let opened: Promise<McpStoreTokenStore> | undefined;
  let closed = false;
  const open = () =>
    (opened ??= (async () => {
      if (closed) throw new AgentdError("E_USAGE", `${WHERE} is closed`);
      const key = await storeKeyFrom(env[keyEnv] || undefined);
      try {
        return new McpStoreTokenStore(await connection.store(), { key: key || undefined });
      } catch (e) {
        // A later use (the next run of a server) tries again.
        opened = undefined;
        throw new AgentdError("E_UPSTREAM", `${WHERE} is unavailable: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
          retryable: true,
        });
      }
    })());
  return {
    getTokens: async (key) => (await open()).getTokens(key),
    setTokens: async (key, tokens) => (await open()).setTokens(key, tokens),
    getClient: async (issuer) => (await open()).getClient(issuer),
    setClient: async (issuer, client) => (await open()).setClient(issuer, client),
    keys: async () => (await open()).keys(),
    withLock: async (key, fn) => (await open()).withLock(key, fn),
    async close() {
      closed = true;
      await opened?.catch(() => {});
      await connection.close();
    },
  };
}
