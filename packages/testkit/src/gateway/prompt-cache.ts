/**
 * The fake gateways' prompt-cache model. A request's prompt is a chain of prefixes: tools + system, then
 * each message in turn, every prefix keyed by a hash of its bytes (with `cache_control` markers left out,
 * as the real API does not cache them). Anthropic writes and reads only at `cache_control` breakpoints,
 * looking back up to 20 prefixes from each for an earlier entry; OpenAI and Gemini cache every prefix
 * automatically and read the longest one seen before. Granularity is whole messages, sizes are the
 * gateways' usual estimate (about 4 characters a token), and entries never expire: a model of the
 * billing rules, not of any provider's internals.
 */
import { sha256Hex } from "./hashing.ts";
import { estimateTokens } from "./answer.ts";

/** One prefix of a prompt. */
export interface PromptPrefix {
  key: string;
  /** Characters of the prompt up to and including this prefix. */
  chars: number;
  /** Anthropic: a `cache_control` breakpoint ends in this prefix. */
  breakpoint: boolean;
}

/** Tokens read from and written to the cache by one request. */
export interface CacheUsage {
  read: number;
  write: number;
}

/** How far back from a breakpoint the Anthropic API looks for an earlier cache entry. */
const LOOKBACK = 20;

/** A JSON value without its `cache_control` markers, serialised. */
export function withoutCacheControl(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v)) ?? "null";
}

/** Whether a JSON value holds a `cache_control` marker anywhere. */
export const hasCacheControl = (value: unknown): boolean => JSON.stringify(value ?? null).includes('"cache_control"');

/** Build the prefix chain of a prompt: a head (tools + system) then each message. */
export function promptPrefixes(head: unknown, messages: readonly unknown[]): PromptPrefix[] {
  const prefixes: PromptPrefix[] = [];
  let hash = sha256Hex(withoutCacheControl(head));
  let chars = withoutCacheControl(head).length;
  prefixes.push({ key: hash, chars, breakpoint: hasCacheControl(head) });
  for (const message of messages) {
    const text = withoutCacheControl(message);
    hash = sha256Hex(hash, text);
    chars += text.length;
    prefixes.push({ key: hash, chars, breakpoint: hasCacheControl(message) });
  }
  return prefixes;
}

/** The cache of one gateway. */
export class PromptCache {
  readonly #entries = new Set<string>();

  constructor(private readonly minTokens = 0) {}

  /** Tokens of a prefix, never more than the request's input. */
  #tokens(prefix: PromptPrefix, input: number): number {
    return Math.min(estimateTokens(prefix.chars), input);
  }

  /** Anthropic: reads and writes at breakpoints only. */
  explicit(prefixes: readonly PromptPrefix[], input: number): CacheUsage {
    let read = 0;
    let last = -1;
    prefixes.forEach((prefix, index) => {
      if (!prefix.breakpoint) return;
      last = index;
      for (let back = index; back >= 0 && back > index - LOOKBACK; back--) {
        const earlier = prefixes[back] as PromptPrefix;
        if (this.#entries.has(earlier.key)) {
          read = Math.max(read, this.#tokens(earlier, input));
          break;
        }
      }
    });
    if (last < 0) return { read: 0, write: 0 };
    const end = prefixes[last] as PromptPrefix;
    const size = this.#tokens(end, input);
    if (this.#entries.has(end.key) || size < this.minTokens) return { read, write: 0 };
    for (const prefix of prefixes) if (prefix.breakpoint && this.#tokens(prefix, input) >= this.minTokens) this.#entries.add(prefix.key);
    return { read, write: size - read };
  }

  /** OpenAI / Gemini: the longest prefix seen before is read; every prefix is remembered. */
  automatic(prefixes: readonly PromptPrefix[], input: number): CacheUsage {
    let read = 0;
    for (const prefix of prefixes) if (this.#entries.has(prefix.key)) read = this.#tokens(prefix, input);
    for (const prefix of prefixes) if (this.#tokens(prefix, input) >= this.minTokens) this.#entries.add(prefix.key);
    return { read, write: 0 };
  }
}
