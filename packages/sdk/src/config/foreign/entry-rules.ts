/**
 * The common ground of the foreign config readers: what one server entry of another tool becomes (an
 * agentd entry as written, or a reason to leave the server out), the keys it had that agentd does not take
 * (each with the reason, for one debug line each and the one warning line of the file), and small helpers
 * for what several tools share — a timeout in seconds or milliseconds, variables named for the server's
 * environment, an allow/deny list of tools.
 */

/** A key of a server entry that agentd did not take, and why. */
export interface IgnoredKey {
  server: string;
  key: string;
  why: string;
  /**
   * A label that changes nothing (a display name, a description, where the entry was installed from): a
   * debug line only, not named in the file's warning.
   */
  quiet?: boolean;
}

/** One entry mapped: the agentd entry as written (before `${VAR}` expansion and the schema check), or why it is left out. */
export type EntryResult = { entry: Record<string, unknown> } | { skip: string };

/** What a reader is handed for one entry. */
export interface EntryContext {
  /** The environment, to check the variables an entry names. */
  env: Record<string, string | undefined>;
  /** Record a key that is not taken. */
  ignore(key: string, why: string, quiet?: boolean): void;
}

/** The reader of one tool's file format. */
export interface FormatReader {
  /** The top-level key holding the server list, as that tool writes it. */
  key: string;
  /** Map one entry (an object; anything else goes to the schema as it is, to be named there). */
  entry(name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult;
  /** Settings outside the list that change entries (Gemini's `mcp.excluded`), applied after they are mapped. */
  document?(doc: Record<string, unknown>, entries: Record<string, unknown>): void;
}

/**
 * What a key of an entry does: `"same"` is taken as it is; a string names the agentd key it becomes; a
 * function writes what it means into the entry; `{ why }` is not taken (`quiet`: a label, see {@link IgnoredKey}).
 */
export type KeyRule =
  | "same"
  | string
  | ((value: unknown, out: Record<string, unknown>, ctx: EntryContext) => void)
  | { why: string; quiet?: boolean };

/**
 * Map an entry key by key. A key the table does not know is kept for the schema to name (`unknown: "keep"`:
 * files whose keys agentd shares, where an odd key is likely a typo) or not taken (`"ignore"`: tools that
 * add settings of their own between versions).
 */
export function mapKeys(
  raw: Record<string, unknown>,
  rules: Readonly<Record<string, KeyRule>>,
  ctx: EntryContext,
  unknown: "keep" | "ignore",
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      if (unknown === "keep") out[key] = value;
      else ctx.ignore(key, "not a setting agentd knows");
    } else if (rule === "same") out[key] = value;
    else if (typeof rule === "string") out[rule] = value;
    else if (typeof rule === "function") rule(value, out, ctx);
    else ctx.ignore(key, rule.why, rule.quiet);
  }
  return out;
}

/** A timeout given as a bare number in `unit`, as an agentd duration ("60s"); any other value is left for the schema to refuse. */
export const timeoutIn =
  (unit: "s" | "ms", to = "timeout"): KeyRule =>
  (value, out) => {
    out[to] = typeof value === "number" && Number.isFinite(value) && value > 0 ? `${value}${unit}` : value;
  };

/** Add to the entry's tool filter (`tools.include` / `tools.exclude`). A non-list is left for the schema to refuse. */
export const toolList =
  (side: "include" | "exclude"): KeyRule =>
  (value, out) => {
    out.tools = { ...(out.tools as object | undefined), [side]: value };
  };

/** `enabled: false` of the other tool is agentd's `disabled: true`. */
export const enabledFlag: KeyRule = (value, out) => {
  if (value === false) out.disabled = true;
  else if (value !== true) out.disabled = value; // not a boolean: the schema names it
};

/**
 * Variables passed from the environment by name (Codex's `env_vars`, goose's `env_keys`), as `${NAME}`
 * references under `env` (so their values are registered as secrets when expanded); the entry's own `env`
 * wins. The names that are not set are returned: each reader decides what that means.
 */
export function envFromNames(names: unknown, out: Record<string, unknown>, env: Record<string, string | undefined>): string[] {
  if (!Array.isArray(names)) return [];
  const missing: string[] = [];
  const own = (out.env as Record<string, unknown> | undefined) ?? {};
  const added: Record<string, string> = {};
  for (const name of names) {
    if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name in own) continue;
    if (env[name]) added[name] = `\${${name}}`;
    else missing.push(name);
  }
  if (Object.keys(added).length > 0) out.env = { ...added, ...own };
  return missing;
}
