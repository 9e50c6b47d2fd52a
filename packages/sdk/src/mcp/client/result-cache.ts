/**
 * The client's cache of cacheable results (2026-07-28 caching spec): `tools/list`, `prompts/list`,
 * `resources/list`, `resources/templates/list` and `resources/read` results carry `ttlMs` (fresh for that
 * long after receipt; absent, 0 or negative: not at all) and `cacheScope`. The cache is one connection's
 * — one client, one authorization context — so both scopes may be reused in it and nothing is shared
 * beyond it. The key is the method and the params that shape the result (`_meta` excluded); retries of a
 * multi round-trip request are never cached, and change notifications invalidate at once.
 */

/** Methods whose results may be cached. */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** How many results one connection keeps (oldest dropped first). */
const MAX_ENTRIES = 256;

interface Entry {
  result: Record<string, unknown>;
  freshUntil: number;
}

/** Cached results of one connection. */
export class ResultCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Number of entries held (fresh or not). */
  get size(): number {
    return this.entries.size;
  }

  /** A fresh cached result of `method` with `params`, or undefined. */
  get(method: string, params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const key = cacheKey(method, params);
    if (key === undefined) return undefined;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() < entry.freshUntil) return entry.result;
    this.entries.delete(key);
    return undefined;
  }

  /** Keep `result` if it says it may be (a complete result with a positive `ttlMs`). */
  put(method: string, params: Record<string, unknown> | undefined, result: Record<string, unknown>): void {
    const key = cacheKey(method, params);
    const ttl = result.ttlMs;
    if (key === undefined || result.resultType === "input_required" || typeof ttl !== "number" || !(ttl > 0)) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { result, freshUntil: this.now() + ttl });
  }

  /** Drop every result of `method` (a list changed), or only the read of `uri`. */
  invalidate(method: string, uri?: string): void {
    for (const key of [...this.entries.keys()]) {
      if (!key.startsWith(`${method} `)) continue;
      if (uri === undefined || key === cacheKey(method, { uri })) this.entries.delete(key);
    }
  }

  /** Drop everything (the connection changed). */
  clear(): void {
    this.entries.clear();
  }
}

/** `method` + the params that shape the result, or undefined when the request must not be cached. */
function cacheKey(method: string, params: Record<string, unknown> | undefined): string | undefined {
  if (!CACHEABLE_METHODS.has(method)) return undefined;
  const { _meta: _ignored, ...rest } = params ?? {};
  if ("inputResponses" in rest || "requestState" in rest) return undefined;
  return `${method} ${stableJson(rest)}`;
}

/** JSON with object keys sorted, so equal params give equal keys. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  return JSON.stringify(value) ?? "null";
}
