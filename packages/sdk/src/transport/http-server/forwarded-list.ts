/**
 * The strict reader of the two list headers a proxy appends to: `Forwarded` (RFC 7239 §4) and Envoy's
 * `X-Forwarded-Client-Cert`. Both are elements separated by `,`, an element is `key=value` pairs separated
 * by `;`, and a value is a bare word or an RFC 7230 §3.2.6 quoted-string (`"…"`, `\` escaping the next
 * character).
 *
 * Why strict: a proxy appends its own element after whatever the client sent (Envoy's `APPEND_FORWARD`,
 * nginx's `$proxy_add_forwarded`), so every byte before the proxy's element is the client's. A reader that
 * lets a quote run to the end, skips a bad escape or keeps one of two values of a key lets the client's
 * text swallow the proxy's element and speak in its place (`Subject=CN=admin;URI="` + the proxy's `,…`).
 * So any of these makes the whole header malformed, and the caller refuses the request; nothing is guessed:
 * an unterminated quoted-string, an escape of a character a quoted-pair may not hold, a control character,
 * text after a closing quote, a key that is not a token, a pair without `=`, an empty element, and a key
 * given twice in one element (unless the caller names it repeatable: Envoy writes one `URI=` or `DNS=`
 * pair per subject alternative name).
 *
 * What is lenient, on purpose: a bare value may hold any visible character but `"`, `,` and `;` (proxies
 * write `host=a.example:8443` and `By=spiffe://…` unquoted, though RFC 7239 would quote them), optional
 * whitespace may surround `,` and `;`, a bare value may be empty (Envoy writes `URI=` for a certificate
 * without one), and an empty pair (`a=1;;b=2`, `a=1;`) is skipped as RFC 7239's grammar allows.
 */

/** One element: its pairs in order, keys lower-cased, values unquoted. */
export type ListElement = Map<string, string[]>;

/** The header's elements in order, or what makes it malformed (a position, never the header's text). */
export type ListParse = { ok: true; elements: ListElement[] } | { ok: false; error: string };

// RFC 7230 §3.2.6: tchar.
const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
const OWS = new Set([" ", "\t"]);
// A quoted-string's own text: HTAB, SP, VCHAR but `"` and `\`, obs-text.
const qdtext = (c: number) => c === 0x09 || c === 0x20 || c === 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e) || c >= 0x80;
// What a quoted-pair may escape: HTAB, SP, VCHAR, obs-text.
const quotable = (c: number) => c === 0x09 || (c >= 0x20 && c <= 0x7e) || c >= 0x80;
// A bare value: visible characters but the separators and the quote.
const bare = (ch: string) => {
  const c = ch.charCodeAt(0);
  return c > 0x20 && c !== 0x7f && ch !== '"' && ch !== "," && ch !== ";";
};

/** Read `header`; `repeatable` names the lower-cased keys that may occur more than once in one element. */
export function parseForwardedList(header: string, repeatable: ReadonlySet<string> = new Set()): ListParse {
  const elements: ListElement[] = [];
  let element: ListElement = new Map();
  let pairs = 0;
  let i = 0;
  const n = header.length;
  const fail = (what: string, at = i): ListParse => ({ ok: false, error: `${what} at character ${at + 1}` });
  const skipOws = () => {
    while (i < n && OWS.has(header[i]!)) i++;
  };
  for (;;) {
    skipOws();
    // A pair, unless this one is empty (`;;`, a trailing `;`) or the element ends.
    if (i < n && header[i] !== ";" && header[i] !== ",") {
      const keyStart = i;
      while (i < n && TCHAR.test(header[i]!)) i++;
      if (i === keyStart) return fail("a key that is not a token");
      const key = header.slice(keyStart, i).toLowerCase();
      if (header[i] !== "=") return fail(`a pair without "="`);
      i++;
      let value = "";
      if (header[i] === '"') {
        const quoteAt = i++;
        let closed = false;
        while (i < n) {
          const c = header.charCodeAt(i);
          if (c === 0x22) {
            closed = true;
            i++;
            break;
          }
          if (c === 0x5c) {
            if (i + 1 >= n || !quotable(header.charCodeAt(i + 1))) return fail("an escape of nothing or of a control character");
            value += header[i + 1];
            i += 2;
            continue;
          }
          if (!qdtext(c)) return fail("a control character in a quoted string");
          value += header[i];
          i++;
        }
        if (!closed) return fail("an unterminated quoted string", quoteAt);
      } else {
        const start = i;
        while (i < n && bare(header[i]!)) i++;
        value = header.slice(start, i);
      }
      const seen = element.get(key);
      if (seen && !repeatable.has(key)) return fail(`the key "${key}" a second time in one element`, keyStart);
      if (seen) seen.push(value);
      else element.set(key, [value]);
      pairs++;
      skipOws();
      if (i < n && header[i] !== ";" && header[i] !== ",") return fail("text after a value");
    }
    if (i >= n || header[i] === ",") {
      if (pairs === 0) return fail("an empty element");
      elements.push(element);
      if (i >= n) return { ok: true, elements };
      element = new Map();
      pairs = 0;
    }
    i++;
  }
}
