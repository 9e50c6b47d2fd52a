/**
 * `{{name}}` substitution in fake content: tool texts take the call's arguments, template texts the URI
 * variables, prompt messages the prompt arguments. Unknown names are left as they are, so a literal
 * `{{…}}` in content survives.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** Replace each `{{name}}` in `text` by `values[name]` (strings as they are, anything else as JSON). */
export function fill(text: string, values: Record<string, unknown>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(values, name)) return whole;
    const value = values[name];
    return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  });
}

/** The completion values of `candidates` that start with `prefix` (case-insensitive), in order. */
export function completeFrom(candidates: readonly string[] | undefined, prefix: string): string[] {
  const p = prefix.toLowerCase();
  return (candidates ?? []).filter((c) => c.toLowerCase().startsWith(p));
}
