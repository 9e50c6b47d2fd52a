/**
 * Where OAuth tokens and dynamic client registrations live between runs.
 *
 * `FileTokenStore`: one JSON file, created 0600 (and its directory 0700), written whole to a temporary file
 * and renamed, so a crash never leaves half a file. With a key (env `AGENTD_OAUTH_STORE_KEY`), the file is
 * AES-256-GCM encrypted at rest: a random 96-bit IV per write, the tag checked on read, so a wrong key or
 * an edited file fails loudly instead of being read as empty. Writers of one process are serialised, and
 * processes share a lock file beside it (`file-lock.ts`): every read-modify-write, and every token refresh
 * (`withLock`), holds it, so two processes neither lose each other's updates nor refresh the same login twice.
 * `MemoryTokenStore` keeps them for the life of the process.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { AgentdError } from "../../../wire/errors.ts";
import { withFileLock } from "./file-lock.ts";

/** The tokens held for one MCP server. Never logged. */
export interface StoredTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms when the access token expires, if the server said. */
  expiresAt?: number;
  /** The scopes granted (space-separated), if known. */
  scope?: string;
  /** The resource (RFC 8707) and issuer the tokens were issued for and by. */
  resource: string;
  issuer: string;
}

/** A client registration obtained from an authorization server (RFC 7591). */
export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  method?: string;
  redirectUris?: string[];
}

/** Persistence of tokens (by server key) and registrations (by issuer). */
export interface TokenStore {
  getTokens(key: string): Promise<StoredTokens | undefined>;
  /** Save, or forget with `undefined`. */
  setTokens(key: string, tokens: StoredTokens | undefined): Promise<void>;
  getClient(issuer: string): Promise<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient): Promise<void>;
  /** Every server key with tokens. */
  keys(): Promise<string[]>;
  /**
   * Run `fn` holding a lock other processes sharing this store respect (a refresh of `key`). Stores that
   * only one process uses need not have it.
   */
  withLock?<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

interface Document {
  tokens: Record<string, StoredTokens>;
  clients: Record<string, StoredClient>;
}

const empty = (): Document => ({ tokens: {}, clients: {} });

/** Tokens in memory only. */
export class MemoryTokenStore implements TokenStore {
  private readonly doc = empty();
  async getTokens(key: string) {
    return this.doc.tokens[key];
  }
  async setTokens(key: string, tokens: StoredTokens | undefined) {
    if (tokens) this.doc.tokens[key] = tokens;
    else delete this.doc.tokens[key];
  }
  async getClient(issuer: string) {
    return this.doc.clients[issuer];
  }
  async setClient(issuer: string, client: StoredClient) {
    this.doc.clients[issuer] = client;
  }
  async keys() {
    return Object.keys(this.doc.tokens);
  }
}

/** The default token file: `$AGENTD_OAUTH_STORE`, else `$XDG_STATE_HOME/agentd/oauth.json` (~/.local/state). */
export function defaultTokenFile(env: Record<string, string | undefined> = process.env): string {
  if (env.AGENTD_OAUTH_STORE) return env.AGENTD_OAUTH_STORE;
  return join(env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "agentd", "oauth.json");
}

/** A 256-bit key from `AGENTD_OAUTH_STORE_KEY`: 32 bytes of base64 as given, any other text hashed (SHA-256). */
export async function storeKeyFrom(value: string | undefined): Promise<CryptoKey | undefined> {
  if (!value) return undefined;
  const raw = Buffer.from(value, "base64");
  const bytes =
    raw.length === 32 && raw.toString("base64") === value
      ? raw
      : new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  return crypto.subtle.importKey("raw", bytes, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A value encrypted at rest: AES-256-GCM, a random 96-bit IV per write, base64 fields. */
export interface Sealed {
  alg: "A256GCM";
  iv: string;
  data: string;
}

/** Encrypt `value` (as JSON) with `key`: how tokens leave the process when a store key is configured. */
export async function seal(key: CryptoKey, value: unknown): Promise<Sealed> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(value)));
  return { alg: "A256GCM", iv: Buffer.from(iv).toString("base64"), data: Buffer.from(data).toString("base64") };
}

/** Decrypt what {@link seal} made; a wrong key or altered data throws (an `OperationError`). */
export async function openSealed(key: CryptoKey, sealed: Sealed): Promise<unknown> {
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: Buffer.from(sealed.iv, "base64") },
    key,
    Buffer.from(sealed.data ?? "", "base64"),
  );
  return JSON.parse(new TextDecoder().decode(plain));
}

/** Tokens in a 0600 file, optionally encrypted. */
export class FileTokenStore implements TokenStore {
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether this process holds the lock file now (a write inside `withLock` must not wait for itself). */
  private held = 0;
  private lockQueue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly key?: CryptoKey,
  ) {}

  async getTokens(key: string) {
    return (await this.read()).tokens[key];
  }
  async setTokens(key: string, tokens: StoredTokens | undefined) {
    await this.update((d) => {
      if (tokens) d.tokens[key] = tokens;
      else delete d.tokens[key];
    });
  }
  async getClient(issuer: string) {
    return (await this.read()).clients[issuer];
  }
  async setClient(issuer: string, client: StoredClient) {
    await this.update((d) => {
      d.clients[issuer] = client;
    });
  }
  async keys() {
    return Object.keys((await this.read()).tokens);
  }

  /** One holder at a time in this process, and across processes through the lock file. */
  withLock<T>(_key: string, fn: () => Promise<T>): Promise<T> {
    const next = this.lockQueue.then(() =>
      this.locked(async () => {
        this.held++;
        try {
          return await fn();
        } finally {
          this.held--;
        }
      }),
    );
    this.lockQueue = next.catch(() => {});
    return next;
  }

  private locked<T>(fn: () => Promise<T>): Promise<T> {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    return withFileLock(`${this.path}.lock`, fn);
  }

  private update(change: (d: Document) => void): Promise<void> {
    const next = this.queue.then(async () => {
      const apply = async () => {
        const doc = await this.read();
        change(doc);
        await this.write(doc);
      };
      await (this.held > 0 ? apply() : this.locked(apply));
    });
    this.queue = next.catch(() => {});
    return next;
  }

  private async read(): Promise<Document> {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return empty();
      throw new AgentdError("E_CONFIG_INVALID", `cannot read the OAuth token store ${this.path}: ${(e as Error).message}`);
    }
    try {
      const parsed = JSON.parse(text) as { iv?: string; data?: string; tokens?: unknown };
      if (parsed.iv !== undefined) {
        if (!this.key) throw new Error("it is encrypted; set AGENTD_OAUTH_STORE_KEY");
        return { ...empty(), ...((await openSealed(this.key, parsed as Sealed)) as Document) };
      }
      if (this.key) throw new Error("it is not encrypted but AGENTD_OAUTH_STORE_KEY is set; remove the file or the key");
      return { ...empty(), ...(parsed as Document) };
    } catch (e) {
      const why =
        e instanceof Error && e.name === "OperationError" ? "wrong AGENTD_OAUTH_STORE_KEY, or the file was altered" : (e as Error).message;
      throw new AgentdError("E_CONFIG_INVALID", `cannot read the OAuth token store ${this.path}: ${why}`);
    }
  }

  private async write(doc: Document): Promise<void> {
    const text = JSON.stringify(this.key ? await seal(this.key, doc) : doc);
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    chmodSync(tmp, 0o600); // the umask may have narrowed it further, never widened: make it exact
    renameSync(tmp, this.path);
  }
}

/** The store agentd uses by default: the default file, encrypted when `AGENTD_OAUTH_STORE_KEY` is set. */
export async function defaultTokenStore(env: Record<string, string | undefined> = process.env): Promise<FileTokenStore> {
  return new FileTokenStore(defaultTokenFile(env), await storeKeyFrom(env.AGENTD_OAUTH_STORE_KEY));
}
