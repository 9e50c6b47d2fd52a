/**
 * Scope: which tools a run may use, as an allow-list of qualified names with globs (`fs/*`,
 * `remote/search`). Tools outside the scope are never offered to the model, and a call to one is
 * refused as a tool-domain error. The scope is fixed when the run starts; nothing the model or a tool
 * says can widen it.
 */

/** The scope of a run. No `allow` means every tool; an empty `allow` means none. */
export interface RunScope {
  /** Globs over qualified tool names: `*` matches any run of characters (`/` included), `?` one. */
  allow?: string[];
}

/** A predicate over qualified tool names. */
export type ScopeCheck = (qualifiedName: string) => boolean;

const globToRegExp = (glob: string): RegExp => {
  let src = "";
  for (const ch of glob) {
    if (ch === "*") src += ".*";
    else if (ch === "?") src += ".";
    else src += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${src}$`, "su");
};

/** Compile a scope into a predicate. */
export function compileScope(scope: RunScope | undefined): ScopeCheck {
  const allow = scope?.allow;
  if (!allow) return () => true;
  const exact = new Set(allow.filter((g) => !/[*?]/.test(g)));
  const globs = allow.filter((g) => /[*?]/.test(g)).map(globToRegExp);
  return (name) => exact.has(name) || globs.some((re) => re.test(name));
}
