/**
 * Make untrusted text safe to place inside a fence: characters a reader cannot see become visible, and
 * anything a reader could take for a fence tag — however it is spelled — loses its `<`.
 *
 * Characters are chosen by Unicode property, not from a list of known tricks: every control character
 * (`\p{Cc}` but tab, newline, carriage return), format character (`\p{Cf}`: bidi controls, zero-width
 * marks, tag characters U+E0000…), default-ignorable code point (U+034F, variation selectors, …) and line or
 * paragraph separator (U+2028, U+2029) is written as `\u{XXXX}`, so a model reads that it was there instead of reading through it. The one
 * exception keeps emoji whole: a zero-width joiner between two pictographs, and a variation selector
 * after a pictograph (or before a keycap), stay as they are.
 *
 * Tag detection runs on a skeleton of the text that remembers where each of its characters came from:
 * compatibility-decomposed (NFKD, so `＜` is `<` and `ｔ` is `t`), marks removed, lower-cased, and every
 * character that is not a letter, a digit or `<` dropped — spaces, NUL, hyphens or their absence, slashes,
 * invisible characters. A `<` followed in the skeleton by a fence tag name is rewritten as `&lt;`.
 */

// Escaped for the reader: controls but \t \n \r, format characters, default-ignorables, lone surrogates,
// and the line and paragraph separators U+2028, U+2029 (line breaks to some readers, none to others).
const HIDDEN = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}\p{Zl}\p{Zp}]/u;
const KEEP_CONTROL = new Set([0x09, 0x0a, 0x0d]);
const PICTOGRAPH = /[\p{Extended_Pictographic}\p{Emoji_Modifier}]/u;
const ZWJ = 0x200d;
const VARIATION_SELECTORS = new Set([0xfe0e, 0xfe0f]);
const KEYCAP = 0x20e3;

// Letters that NFKD leaves alone but a reader takes for the Latin letters of our tag names.
const CONFUSABLE: Record<string, string> = {
  о: "o",
  ο: "o",
  օ: "o",
  "0": "o",
  т: "t",
  τ: "t",
  р: "p",
  ρ: "p",
  υ: "u",
  ս: "u",
  е: "e",
  ε: "e",
  ѕ: "s",
  с: "c",
  х: "x",
  ӏ: "l",
  "1": "l",
  ı: "l",
  "|": "l",
  і: "l",
  ⅼ: "l",
  ʟ: "l",
};
// Characters a reader takes for "<" that NFKD does not map to it.
const OPEN_BRACKETS = new Set(["\u2039", "\u2329", "\u3008", "\u27e8", "\u02c2", "\u1438", "\u276e", "\u29fc"]);

const hex = (cp: number): string => `\\u{${cp.toString(16).toUpperCase().padStart(4, "0")}}`;

/** Whether the code point at `i` of `cps` is shown as `\u{XXXX}` rather than passed through. */
function isHidden(cps: readonly number[], i: number): boolean {
  const cp = cps[i] as number;
  if (cp < 0x80) return (cp < 0x20 || cp === 0x7f) && !KEEP_CONTROL.has(cp);
  if (!HIDDEN.test(String.fromCodePoint(cp))) return false;
  const prev = i > 0 ? String.fromCodePoint(cps[i - 1] as number) : "";
  const next = i + 1 < cps.length ? String.fromCodePoint(cps[i + 1] as number) : "";
  if (cp === ZWJ) return !(PICTOGRAPH.test(prev) || VARIATION_SELECTORS.has(cps[i - 1] ?? -1)) || !PICTOGRAPH.test(next);
  if (VARIATION_SELECTORS.has(cp)) return !(PICTOGRAPH.test(prev) || (/^[0-9#*]$/.test(prev) && cps[i + 1] === KEYCAP));
  return true;
}

const cache = new Map<string, string>();

/** The skeleton of one character: what it reads as, reduced to `[a-z0-9<]` (often nothing). */
function skeletonOf(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch.length === 1 && code < 0x80) {
    const lower = code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch;
    const folded = CONFUSABLE[lower] ?? lower;
    return /^[a-z0-9<]$/.test(folded) ? folded : "";
  }
  let known = cache.get(ch);
  if (known === undefined) {
    known = computeSkeleton(ch);
    if (cache.size < 10_000) cache.set(ch, known);
  }
  return known;
}

function computeSkeleton(ch: string): string {
  if (OPEN_BRACKETS.has(ch)) return "<";
  let out = "";
  for (const c of ch.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()) {
    const folded = CONFUSABLE[c] ?? c;
    if (/^[a-z0-9<]$/.test(folded)) out += folded;
  }
  return out;
}

/** The reduced tag names (`tool-output` → `tooloutput`) that must never appear after a `<`. */
export const tagSkeleton = (tag: string): string => [...tag].map(skeletonOf).join("");

const PLAIN = /^[\t\n\r\x20-\x3b\x3d-\x7e]*$/;

// The pattern of a tag list, built once per list (every fenced text used to rebuild it).
const tagPatterns = new Map<string, RegExp>();
function tagPattern(tags: readonly string[]): RegExp {
  const key = tags.join("\n");
  let pattern = tagPatterns.get(key);
  if (!pattern) {
    pattern = new RegExp(`<(?=${tags.map(tagSkeleton).join("|")})`, "g");
    if (tagPatterns.size < 64) tagPatterns.set(key, pattern);
  }
  return pattern;
}

/**
 * `text` made safe for a fence whose tag names are `tags`: hidden characters shown as `\u{XXXX}`, and the
 * `<` of anything a reader could take for one of those tags written as `&lt;`. Text without hidden
 * characters or tag look-alikes comes back unchanged.
 */
export function neutralise(text: string, tags: readonly string[]): string {
  // Printable ASCII (with tab, newline, carriage return) and no "<": nothing is hidden, and no skeleton
  // "<" can arise (no ASCII character but "<" reduces to it), so the text comes back unchanged.
  if (PLAIN.test(text)) return text;
  const cps = Array.from(text, (c) => c.codePointAt(0) as number);
  let skeleton = "";
  const origin: number[] = [];
  cps.forEach((cp, i) => {
    for (const c of skeletonOf(String.fromCodePoint(cp))) {
      skeleton += c;
      origin.push(i);
    }
  });
  const starts = new Set<number>();
  for (const m of skeleton.matchAll(tagPattern(tags))) starts.add(origin[m.index] as number);
  let out = "";
  cps.forEach((cp, i) => {
    out += starts.has(i) ? "&lt;" : isHidden(cps, i) ? hex(cp) : String.fromCodePoint(cp);
  });
  return out;
}

/** The reduced skeleton of a whole text (for checking that a fence id does not occur in it). */
export const skeletonOfText = (text: string): string => Array.from(text, skeletonOf).join("");
