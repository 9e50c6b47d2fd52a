/**
 * Tool names for providers. MCP tools are qualified `server/tool` (and MCP tool names may hold `.` and
 * `/`), but the providers accept only `^[a-zA-Z0-9_-]{1,64}$`. The map turns each qualified name into a
 * provider-safe one (`server__tool`), unique within the run, cut to 64 characters with a short hash when
 * too long, and maps the model's calls back.
 */

/** What providers accept as a function name. */
export const PROVIDER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;

/** FNV-1a, 32 bit, as 7 base-36 characters: a short, stable tag that tells similar names apart. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(7, "0");
}

const sanitize = (qualified: string): string => {
  const s = qualified.replace(/\//g, "__").replace(/[^a-zA-Z0-9_-]/g, "_");
  return s.length > 0 ? s : "tool";
};

const withHash = (base: string, tag: string): string => `${base.slice(0, MAX - tag.length - 1)}_${tag}`;

/** A two-way map between qualified tool names and provider-safe names. */
export interface ToolNameMap {
  /** The provider-safe name of a qualified name (undefined when the tool is not in the map). */
  toProvider(qualified: string): string | undefined;
  /** The qualified name a model's call refers to: by provider name, or the qualified name itself. */
  toQualified(name: string): string | undefined;
}

/** Build the map for one run's tools. Deterministic for a given list. */
export function createToolNameMap(qualifiedNames: readonly string[]): ToolNameMap {
  const forward = new Map<string, string>();
  const back = new Map<string, string>();
  for (const q of qualifiedNames) {
    if (forward.has(q)) continue;
    let name = sanitize(q);
    if (name.length > MAX) name = withHash(name, shortHash(q));
    // A clash (`a.b/c` and `a_b/c` both sanitise to `a_b__c`): tag the later one with its own hash,
    // then with a counter in the (astronomically unlikely) case the hash clashes too.
    if (back.has(name)) name = withHash(sanitize(q), shortHash(q));
    for (let n = 2; back.has(name); n++) name = withHash(sanitize(q), `${shortHash(q)}${n}`);
    forward.set(q, name);
    back.set(name, q);
  }
  return {
    toProvider: (q) => forward.get(q),
    toQualified: (name) => back.get(name) ?? (forward.has(name) ? name : undefined),
  };
}
