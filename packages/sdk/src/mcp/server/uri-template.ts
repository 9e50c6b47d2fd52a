/**
 * Matching URIs against RFC 6570 templates, the subset resource templates use: simple string expansion
 * `{var}` (one segment, percent-encoded, so never spans a `/`) and reserved expansion `{+var}` (may span
 * segments). Several variables in one brace (`{a,b}`) and the other operators are not supported; a
 * template using them matches nothing (and {@link compileUriTemplate} reports it).
 */
import { AgentdError } from "../../wire/errors.ts";

/** A compiled template. */
export interface UriTemplate {
  readonly template: string;
  /** The variable names, in order. */
  readonly variables: readonly string[];
  /** The variables of `uri`, or undefined when it does not match. */
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{([+]?)([A-Za-z0-9_.%]+)\}/g;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Compile `template`; throws a one-line error when it uses unsupported operators. */
export function compileUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  const reserved: boolean[] = [];
  let pattern = "^";
  let last = 0;
  for (const m of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, m.index));
    const isReserved = m[1] === "+";
    pattern += isReserved ? "(.+?)" : "([^/?#]+?)";
    variables.push(m[2] as string);
    reserved.push(isReserved);
    last = m.index + m[0].length;
  }
  const rest = template.slice(last);
  if (/[{}]/.test(template.replace(EXPRESSION, "")))
    throw new AgentdError("E_USAGE", `unsupported URI template "${template}": only {var} and {+var} expressions are supported`);
  pattern += `${escapeRegExp(rest)}$`;
  const re = new RegExp(pattern);
  return {
    template,
    variables,
    match(uri) {
      const m = re.exec(uri);
      if (!m) return undefined;
      const out: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) {
        const raw = m[i + 1] as string;
        try {
          out[variables[i] as string] = reserved[i] ? raw : decodeURIComponent(raw);
        } catch {
          return undefined;
        }
      }
      return out;
    },
  };
}
