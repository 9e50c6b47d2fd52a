/**
 * Masking text that arrives in pieces (a model's streamed deltas). A model repeating a 40-character key writes
 * it over many deltas, none holding the whole value, so masking each delta alone would let it through. The
 * masker keeps the end of what it passed on as context and holds back the end of a piece while it reads as
 * the start of a secret, until the next piece settles it: a whole value is written `[redacted]`, anything else
 * is passed on unchanged. Only a start of at least {@link MIN_HELD_PREFIX} characters is held, so ordinary
 * text (a delta ending in `s` while a key starts with `sk-`) flows as it came; the price is that the first
 * one to three characters of a secret split at just that point show before the rest is masked.
 */
import { compiledSecrets, type CompiledSecrets, REDACTED } from "./secret-values.ts";

/** The shortest start of a secret held back at the end of a piece. */
export const MIN_HELD_PREFIX = 4;

/** A masker for one stream of text pieces. */
export interface StreamMasker {
  /** The next piece: what can be passed on now, masked ("" while it is all held back). */
  push(piece: string): string;
  /** The stream ended: what is still held, masked. */
  end(): string;
}

// Each compiled set's prefixes, built the first time a stream needs them.
const prefixSets = new WeakMap<CompiledSecrets, { prefixes: Set<string>; firsts: Set<string>; longest: number }>();

function prefixesOf(c: CompiledSecrets) {
  let p = prefixSets.get(c);
  if (p === undefined) {
    const prefixes = new Set<string>();
    const firsts = new Set<string>();
    for (const f of c.forms) {
      firsts.add(f[0] as string);
      for (let n = MIN_HELD_PREFIX; n < f.length; n++) prefixes.add(f.slice(0, n));
    }
    p = { prefixes, firsts, longest: c.forms[0]?.length ?? 0 };
    prefixSets.set(c, p);
  }
  return p;
}

/** A masker for one stream; with no secret registered, pieces pass through untouched. */
export function createStreamMasker(): StreamMasker {
  let held = "";
  // The end of what was passed on (raw), as context: a secret that began there is masked where it goes on.
  let tail = "";
  const settle = (c: CompiledSecrets, all: boolean): string => {
    const text = held;
    const { prefixes, firsts, longest } = prefixesOf(c);
    const ctx = tail + text;
    let cut = text.length;
    if (!all) {
      // The longest end of the context that reads as the start of a secret: hold its part in this text.
      for (let p = Math.max(0, ctx.length - longest + 1); p <= ctx.length - MIN_HELD_PREFIX; p++) {
        if (!firsts.has(ctx[p] as string) || !prefixes.has(ctx.slice(p))) continue;
        cut = Math.max(0, p - tail.length);
        break;
      }
    }
    let out = "";
    let at = 0;
    for (const m of ctx.matchAll(c.matcher)) {
      const start = m.index - tail.length;
      const end = start + m[0].length;
      if (end <= 0) continue; // passed on (masked) before
      if (start >= cut) break; // held: settled with the next piece
      out += `${text.slice(at, Math.max(0, start))}${REDACTED}`;
      at = end;
      cut = Math.max(cut, end); // a whole value crossing the cut goes now, masked
    }
    out += text.slice(at, cut);
    tail = (tail + text.slice(0, cut)).slice(-Math.max(0, longest - 1));
    held = text.slice(cut);
    return out;
  };
  return {
    push(piece) {
      const c = compiledSecrets();
      if (c === undefined) {
        const out = held + piece;
        held = "";
        return out;
      }
      held += piece;
      return settle(c, false);
    },
    end() {
      const c = compiledSecrets();
      const out = c === undefined ? held : settle(c, true);
      held = tail = "";
      return out;
    },
  };
}
