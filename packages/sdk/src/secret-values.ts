/**
 * The values agentd holds as secrets, and the one matcher that masks them wherever they would enter its
 * records and answers. A secret is whatever agentd itself sends upstream on the user's behalf: the model's API
 * key, every `${VAR}` value expanded into the config (an MCP server's env, headers or arguments, a model
 * header), the values of an editor config's `envFile`, and OAuth tokens. Any peer may echo one back (a
 * gateway quoting request headers, a server printing its environment), and the model may repeat it: so a
 * run's events, its result and its error are masked once, where the agent takes them in, and every surface
 * (answers to callers, run history, console, store, telemetry, `agentd run`'s output) shows `[redacted]`.
 *
 * Why one process-wide set and not one per agent: the values are registered where they are read (config
 * expansion, the key chosen, a token issued), before any agent exists, and a process serves one
 * configuration; masking another agent's secret too is harmless. The matcher is one regular expression over
 * the literal values, built when the set changes and reused until it changes again: a string is scanned
 * once (the regex engine dispatches on the first character), and with no secret registered nothing is scanned.
 */

/**
 * The shortest value masked. Shorter ones are left alone: they would garble ordinary text (`1`, `info`,
 * `true`) and are too short to be credentials.
 */
export const MIN_SECRET_CHARS = 6;
const MAX_SECRET_VALUES = 1024;
/** What a masked value is written as. */
export const REDACTED = "[redacted]";
// Past this depth a structured value is masked as its JSON text (no recursion without bound).
const MAX_DEPTH = 64;

const secretValues = new Set<string>();
let matcher: RegExp | undefined;

/**
 * Treat `value` as a secret from now on: masked wherever it appears — as is, JSON-escaped or URL-encoded — by
 * {@link maskSecretValues}, {@link maskSecrets} and so every logger and output built on them.
 */
export function registerSecretValue(value: string): void {
  if (value.length < MIN_SECRET_CHARS || secretValues.size >= MAX_SECRET_VALUES) return;
  for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) {
    if (secretValues.has(form)) continue;
    secretValues.add(form);
    matcher = undefined;
  }
}

/** Stop masking `value` (an access token that was replaced by a new one). */
export function forgetSecretValue(value: string): void {
  for (const form of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)])
    if (secretValues.delete(form)) matcher = undefined;
}

/** Whether any secret is registered (when none is, masking is skipped entirely). */
export const hasSecretValues = (): boolean => secretValues.size > 0;

/** The registered values compiled: built when the set changes, reused until it changes again. */
export interface CompiledSecrets {
  /** Every form of every value, longest first (a value containing another is masked whole). */
  matcher: RegExp;
  /** Every form of every value (as is, JSON-escaped, URL-encoded), longest first. */
  forms: readonly string[];
}

let compiled: CompiledSecrets | undefined;

/** The compiled set, or undefined when no secret is registered. */
export function compiledSecrets(): CompiledSecrets | undefined {
  if (secretValues.size === 0) return undefined;
  if (matcher === undefined || compiled?.matcher !== matcher) {
    const forms = [...secretValues].sort((a, b) => b.length - a.length);
    matcher = new RegExp(forms.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "g");
    compiled = { matcher, forms };
  }
  return compiled;
}

const secretMatcher = (): RegExp => (compiledSecrets() as CompiledSecrets).matcher;

/** `s` with every registered secret value written `[redacted]`; `s` itself when none is registered. */
export const maskSecretValues = (s: string): string => (secretValues.size === 0 ? s : s.replace(secretMatcher(), REDACTED));

function maskDeep(value: unknown, depth: number): unknown {
  if (typeof value === "string") return value.replace(secretMatcher(), REDACTED);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) {
    // Deeper than any real answer: masked as a whole if its text holds a secret at all.
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch {
      return REDACTED; // a cycle or a bigint: not an answer, and not worth the risk
    }
    return text !== undefined && text.replace(secretMatcher(), REDACTED) !== text ? REDACTED : value;
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const masked = maskDeep(item, depth + 1);
      if (masked !== item) (out ??= value.slice())[i] = masked;
    }
    return out ?? value;
  }
  // Only plain records are walked (an Error, a Date, a Map keep their identity; errors are masked apart).
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, item] of Object.entries(value)) {
    const masked = maskDeep(item, depth + 1);
    if (masked !== item) (out ??= { ...(value as Record<string, unknown>) })[k] = masked;
  }
  return out ?? value;
}

/**
 * `value` with every registered secret masked in its strings, walking arrays and plain objects. What holds no
 * secret comes back as the same object (nothing is copied); with no secret registered, `value` itself.
 */
export function maskSecrets<T>(value: T): T {
  return secretValues.size === 0 ? value : (maskDeep(value, 0) as T);
}

/** Mask an error's message in place (what a run's callers, history and telemetry read of it), and return it. */
export function maskErrorSecrets<T>(error: T): T {
  if (secretValues.size > 0 && error instanceof Error) {
    const message = maskSecretValues(error.message);
    if (message !== error.message) {
      error.message = message;
      // The stack starts with the message: it would otherwise keep the secret for whoever logs it.
      if (typeof error.stack === "string") error.stack = maskSecretValues(error.stack);
    }
  }
  return error;
}
