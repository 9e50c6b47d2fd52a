/**
 * OAuth client tokens kept in an MCP store (`agentd store`, directory or Redis backend) instead of the
 * local 0600 file, so replicas without a shared volume share one login per server.
 *
 * Documents: `PREFIX/tokens/H` per server key and `PREFIX/clients/H` per issuer, H the SHA-256 (base64url) of
 * the server key (name and URL) or issuer — store keys allow few characters — with the key itself kept inside
 * to list them. With a key (the same `AGENTD_OAUTH_STORE_KEY` as the file), tokens and registrations are
 * AES-256-GCM encrypted before they leave the process, exactly as the file is; a wrong key or an altered
 * document is an error, never read as empty. `withLock` is a lease in the store (`PREFIX/locks/H`, created
 * with compare-and-set, taken over once its lease has passed), so two processes refreshing one server's
 * token at once refresh it once.
 */
import { sha256 } from "../_internal/hash.ts";
import type { StoredClient, StoredTokens, TokenStore } from "../transport/http-client/oauth/token-store.ts";
import { openSealed, type Sealed, seal } from "../transport/http-client/oauth/token-store.ts";
import { AgentdError } from "../wire/errors.ts";
import type { StoreClient } from "./store-client.ts";

/** Options of {@link McpStoreTokenStore}. */
export interface McpStoreTokenStoreOptions {
  /** Encrypt what is stored (see `storeKeyFrom`). */
  key?: CryptoKey;
  /** Key prefix in the store. Default `oauth`. */
  prefix?: string;
  /** A lock whose holder stopped is taken over after this long (ms). Default 30 s. */
  leaseMs?: number;
}

interface Entry {
  /** The server key or issuer this document is for. */
  name: string;
  value?: unknown;
  sealed?: Sealed;
}

const hash = (s: string) => sha256(s, "base64url");
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A {@link TokenStore} in an MCP store. */
export class McpStoreTokenStore implements TokenStore {
  private readonly prefix: string;
  private readonly holder = `${process.pid}-${crypto.randomUUID()}`;

  constructor(
    private readonly store: StoreClient,
    private readonly options: McpStoreTokenStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? "oauth";
  }

  async getTokens(key: string): Promise<StoredTokens | undefined> {
    return (await this.read(`${this.prefix}/tokens/${hash(key)}`)) as StoredTokens | undefined;
  }
  async setTokens(key: string, tokens: StoredTokens | undefined): Promise<void> {
    const doc = `${this.prefix}/tokens/${hash(key)}`;
    if (tokens) await this.store.put(doc, await this.entry(key, tokens));
    else await this.store.delete(doc);
  }
  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return (await this.read(`${this.prefix}/clients/${hash(issuer)}`)) as StoredClient | undefined;
  }
  async setClient(issuer: string, client: StoredClient): Promise<void> {
    await this.store.put(`${this.prefix}/clients/${hash(issuer)}`, await this.entry(issuer, client));
  }
  async keys(): Promise<string[]> {
    const listed = await this.store.list(`${this.prefix}/tokens/`);
    const names = await Promise.all(listed.map(async (k) => ((await this.store.get(k.key))?.value as Entry | undefined)?.name));
    return names.filter((n): n is string => typeof n === "string");
  }

  /** Hold the store lease of `key` while `fn` runs (a token refresh). */
  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const doc = `${this.prefix}/locks/${hash(key)}`;
    const leaseMs = this.options.leaseMs ?? 30_000;
    const deadline = Date.now() + 2 * leaseMs;
    let version: number | undefined;
    for (let delay = 10; version === undefined; delay = Math.min(delay * 2, 200)) {
      const held = await this.store.get(doc);
      const lease = { holder: this.holder, until: Date.now() + leaseMs };
      const until = (held?.value as { until?: unknown } | undefined)?.until;
      // Absent (version 0), or a lease that has run out: take it; compare-and-set lets one taker win.
      if (!held || typeof until !== "number" || until < Date.now()) {
        const r = await this.store.compareAndSet(doc, held?.version ?? 0, lease);
        if (r.ok) version = r.version;
      }
      if (version === undefined) {
        if (Date.now() > deadline)
          throw new AgentdError("E_STORE", `the OAuth token lock ${doc} is still held; is another agentd refreshing?`);
        await sleep(delay);
      }
    }
    try {
      return await fn();
    } finally {
      // Only our own lease, at the version we wrote: one taken over from us is another's now.
      await this.store.delete(doc, version).catch(() => {});
    }
  }

  private async entry(name: string, value: unknown): Promise<Entry> {
    return this.options.key ? { name, sealed: await seal(this.options.key, value) } : { name, value };
  }

  private async read(doc: string): Promise<unknown> {
    const found = await this.store.get(doc);
    if (!found) return undefined;
    const e = found.value as Entry;
    if (e.sealed) {
      if (!this.options.key)
        throw new AgentdError("E_CONFIG_INVALID", `the OAuth tokens in the store (${doc}) are encrypted; set AGENTD_OAUTH_STORE_KEY`);
      try {
        return await openSealed(this.options.key, e.sealed);
      } catch {
        throw new AgentdError(
          "E_CONFIG_INVALID",
          `cannot read the OAuth tokens in the store (${doc}): wrong AGENTD_OAUTH_STORE_KEY, or the document was altered`,
        );
      }
    }
    if (this.options.key)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        `the OAuth tokens in the store (${doc}) are not encrypted but AGENTD_OAUTH_STORE_KEY is set; log in again or unset the key`,
      );
    return e.value;
  }
}
