/**
 * The Redis backend: a document is a hash `<prefix>doc:<key>` with `v` (version) and `d` (JSON text); a
 * sorted set `<prefix>index` lists the keys (by lexical range, so `list` needs no SCAN). Each operation is
 * one Lua script, so version check and write are atomic on the server, and each write PUBLISHes its key
 * on `<prefix>changes`: every store process sharing the Redis hears every change, and tells its
 * subscribed clients.
 *
 * Client: Bun's built-in `RedisClient` (RESP3, auto-reconnect, pub/sub) rather than an npm package —
 * the operations here are a handful of EVAL/HGET/ZRANGE calls, and it adds no dependency.
 */
import { AgentdError } from "../wire/errors.ts";
import { checkKey } from "./key.ts";
import type { ChangeListener, CompareAndSetResult, ListedKey, StoreBackend, StoredDocument } from "./types.ts";

/** KEYS: doc, index. ARGV: key, json, channel. */
const PUT = `local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'd', ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return v`;
/** KEYS: doc, index. ARGV: key, json, channel, expected version. */
const CAS = `local cur = tonumber(redis.call('HGET', KEYS[1], 'v')) or 0
if cur ~= tonumber(ARGV[4]) then return {0, cur, redis.call('HGET', KEYS[1], 'd')} end
redis.call('HSET', KEYS[1], 'v', cur + 1, 'd', ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return {1, cur + 1}`;
/** KEYS: doc, index. ARGV: key, channel, expected version or ''. */
const DEL = `local cur = tonumber(redis.call('HGET', KEYS[1], 'v'))
if not cur or (ARGV[3] ~= '' and cur ~= tonumber(ARGV[3])) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[1])
return 1`;

type RedisClient = InstanceType<typeof Bun.RedisClient>;

/** `text` with the password of `url` removed, should the client have quoted it. */
function redact(text: string, url: string): string {
  try {
    const u = new URL(url);
    let out = text;
    for (const secret of [u.password, decodeURIComponent(u.password)]) if (secret) out = out.split(secret).join("***");
    return out;
  } catch {
    return text;
  }
}

/**
 * Bun's client, from the global rather than `import … from "bun"`: the store's other parts (the directory
 * backend, the MCP server and client) also load under Node, where only this backend is unavailable.
 */
function newRedisClient(url: string, options?: ConstructorParameters<typeof Bun.RedisClient>[1]): RedisClient {
  const bun = (globalThis as { Bun?: typeof Bun }).Bun;
  if (!bun?.RedisClient)
    throw new AgentdError(
      "E_USAGE",
      "the store's Redis backend needs the Bun runtime (its Redis client is Bun's): run it with Bun or the agentd binary, or use the directory backend",
    );
  return new bun.RedisClient(url, options);
}

/** Options of a {@link RedisBackend}. */
export interface RedisBackendOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`). */
  url: string;
  /** Prefix of every Redis key this store uses (default `agentd:store:`): several stores can share one Redis. */
  prefix?: string;
  /** How long {@link RedisBackend.ready} waits for Redis to answer before it gives up (ms). Default 5 s. */
  connectTimeoutMs?: number;
}

/** The Redis URL without its credentials (`redis://host:port/db`), for messages and logs. */
export function redisUrlForDisplay(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "the Redis URL given (not a valid URL)";
  }
}

/** A {@link StoreBackend} on a Redis server. */
export class RedisBackend implements StoreBackend {
  readonly kind = "redis";
  private readonly client: RedisClient;
  private subscriber: RedisClient | undefined;
  /** Settles once the SUBSCRIBE is confirmed (or failed: its error surfaces on the next command). */
  private subscribing: Promise<unknown> = Promise.resolve();
  private readonly prefix: string;
  private readonly listeners = new Set<ChangeListener>();

  constructor(private readonly options: RedisBackendOptions) {
    this.prefix = options.prefix ?? "agentd:store:";
    this.client = newRedisClient(options.url, { enableOfflineQueue: true });
  }

  async get(key: string): Promise<StoredDocument | undefined> {
    const [v, d] = (await this.call("HMGET", [this.doc(checkKey(key)), "v", "d"])) as [string | null, string | null];
    if (v === null || d === null) return undefined;
    return { key, version: Number(v), value: JSON.parse(d) };
  }

  async put(key: string, value: unknown): Promise<number> {
    return Number(await this.eval(PUT, checkKey(key), [JSON.stringify(value), this.channel]));
  }

  async compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult> {
    const [ok, version, d] = (await this.eval(CAS, checkKey(key), [JSON.stringify(value), this.channel, String(expectedVersion)])) as [
      number,
      number,
      string | null,
    ];
    if (ok === 1) return { ok: true, version: Number(version) };
    return d === null || d === undefined ? { ok: false, version: 0 } : { ok: false, version: Number(version), value: JSON.parse(d) };
  }

  async delete(key: string, expectedVersion?: number): Promise<boolean> {
    return Number(await this.eval(DEL, checkKey(key), [this.channel, expectedVersion === undefined ? "" : String(expectedVersion)])) === 1;
  }

  async list(prefix: string): Promise<ListedKey[]> {
    const keys = (await this.call("ZRANGE", [this.index, `[${prefix}`, `[${prefix}\xff`, "BYLEX"])) as string[];
    const out: ListedKey[] = [];
    for (const key of keys) {
      const v = (await this.call("HGET", [this.doc(key), "v"])) as string | null;
      if (v !== null) out.push({ key, version: Number(v) });
    }
    return out;
  }

  watch(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (!this.subscriber) {
      // Pub/sub needs a connection of its own.
      this.subscriber = newRedisClient(this.options.url);
      this.subscribing = this.subscriber
        .subscribe(this.channel, (key: string) => {
          for (const l of this.listeners) l(key);
        })
        .catch(() => {});
    }
    return () => this.listeners.delete(listener);
  }

  /**
   * Connect to Redis once and PING it, bounded by `connectTimeoutMs`, on a probe connection that does not
   * retry: an unreachable or refusing server fails the start at once (the backend's own client would keep
   * retrying its connection for half a minute or more while commands queue). Rejects with `E_UPSTREAM`
   * naming the URL without its credentials.
   */
  async ready(): Promise<void> {
    const ms = this.options.connectTimeoutMs ?? 5_000;
    const probe = newRedisClient(this.options.url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: ms });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
    const ping = probe
      .connect()
      .then(() => probe.send("PING", []))
      .then(
        () => "ok" as const,
        (e: unknown) => e,
      );
    const outcome = await Promise.race([ping, timedOut]).finally(() => {
      clearTimeout(timer);
      probe.close();
    });
    if (outcome === "ok") return;
    const why =
      outcome === "timeout"
        ? `no answer within ${Math.round(ms / 100) / 10} s`
        : redact(outcome instanceof Error ? outcome.message : String(outcome), this.options.url);
    throw new AgentdError(
      "E_UPSTREAM",
      `cannot reach Redis at ${redisUrlForDisplay(this.options.url)} (${why}): check --redis (or AGENT_STORE_REDIS) and that Redis is up and reachable`,
      { retryable: true },
    );
  }

  async watching(): Promise<void> {
    await this.subscribing;
  }

  async close(): Promise<void> {
    await this.subscribing;
    this.subscriber?.close();
    this.client.close();
  }

  private get channel(): string {
    return `${this.prefix}changes`;
  }
  private get index(): string {
    return `${this.prefix}index`;
  }
  private doc(key: string): string {
    return `${this.prefix}doc:${key}`;
  }

  private async eval(script: string, key: string, argv: string[]): Promise<unknown> {
    // A write this process makes once someone watches is published only after our SUBSCRIBE is live:
    // otherwise, on a busy machine, the PUBLISH could beat it and the watcher would never hear of the write.
    if (this.subscriber) await this.subscribing;
    return this.call("EVAL", [script, "2", this.doc(key), this.index, key, ...argv]);
  }

  private async call(command: string, args: string[]): Promise<unknown> {
    try {
      return await this.client.send(command, args);
    } catch (e) {
      throw new AgentdError("E_STORE", `redis ${command} failed: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
        retryable: true,
      });
    }
  }
}
