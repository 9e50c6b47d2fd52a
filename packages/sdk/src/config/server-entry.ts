/**
 * One `mcpServers` entry, checked for the mistakes people make when they bring a server from another
 * tool's config — before the schema checks the values — so the error names the field and says what to do
 * instead of "an MCP server: {command…} or {url…}": the 2024-11-05 HTTP+SSE transport (`"type": "sse"`,
 * Cline's `"transport": "sse"`), a typo (`arg`), or another tool's setting (`autoApprove`).
 */

/** The fields of a stdio server entry. */
export const STDIO_FIELDS = [
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "disabled",
  "required",
  "versionNegotiation",
  "sampling",
  "prompts",
  "timeout",
  "maxTotalTimeout",
  "tools",
] as const;
/** The fields of a Streamable HTTP server entry. */
export const HTTP_FIELDS = [
  "type",
  "url",
  "headers",
  "oauth",
  "disabled",
  "required",
  "versionNegotiation",
  "sampling",
  "prompts",
  "timeout",
  "maxTotalTimeout",
  "tools",
] as const;
/** The values `type` may take. */
export const SERVER_TYPES = ["stdio", "http", "streamable-http", "streamableHttp"] as const;

const SSE =
  'the 2024-11-05 HTTP+SSE transport is not supported: point "url" at the server\'s Streamable HTTP endpoint ' +
  '(often …/mcp rather than …/sse) and use "type": "http" or no "type"';

/** Other tools' per-server settings: why agentd has none, and what to use instead. */
export const FOREIGN_FIELDS: Record<string, string> = {
  autoApprove: 'not an agentd setting (agentd asks no one before a tool call): limit tools with "scope.allow" globs, or remove it',
  alwaysAllow: 'not an agentd setting (agentd asks no one before a tool call): limit tools with "scope.allow" globs, or remove it',
  envFile: 'not read by agentd: list the variables under "env" (values may use ${VAR} from the environment)',
};

/** A problem found in an entry: the field it is about (if one), and the sentence for the person. */
export interface EntryProblem {
  field?: string;
  message: string;
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions), case-insensitive. */
function distance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      row[j] = Math.min((d[i - 1] as number[])[j]! + 1, row[j - 1]! + 1, (d[i - 1] as number[])[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) row[j] = Math.min(row[j]!, (d[i - 2] as number[])[j - 2]! + 1);
    }
  return (d[s.length] as number[])[t.length] as number;
}

/** The candidate closest to `word`, if close enough to be what was meant (at most a third of it differs). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return bestDistance <= Math.max(1, Math.floor(Math.max(word.length, 3) / 3)) ? best : undefined;
}

const isSse = (v: unknown): boolean => typeof v === "string" && v.toLowerCase() === "sse";
const quoted = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(", ");

/**
 * The first problem of a raw `mcpServers` entry that a shape check would only report as "not an MCP
 * server", or undefined when the entry has the right fields (its values are the schema's business).
 */
export function entryProblem(entry: unknown): EntryProblem | undefined {
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) return undefined; // the schema says "expected an object"
  const e = entry as Record<string, unknown>;
  if (isSse(e.type)) return { field: "type", message: SSE };
  for (const field of ["transport", "transportType"])
    if (field in e)
      return isSse(e[field])
        ? { field, message: SSE }
        : { field, message: 'unknown field: agentd takes the transport from "command" (stdio) or "url" (Streamable HTTP); remove it' };
  if ("type" in e && !(SERVER_TYPES as readonly unknown[]).includes(e.type)) {
    const hint = typeof e.type === "string" ? closest(e.type.replace(/([a-z])([A-Z])/g, "$1-$2"), SERVER_TYPES) : undefined;
    return { field: "type", message: `one of ${quoted(SERVER_TYPES)}${hint ? ` (did you mean "${hint}"?)` : ""}` };
  }
  const hasCommand = "command" in e;
  const hasUrl = "url" in e;
  if (hasCommand && hasUrl)
    return { message: 'has both "command" and "url": keep "command" for a stdio server or "url" for a Streamable HTTP server' };
  if (e.type === "stdio" && hasUrl)
    return { field: "type", message: '"stdio" runs a "command"; for a "url" use "type": "http" or no "type"' };
  if (e.type !== undefined && e.type !== "stdio" && hasCommand)
    return { field: "type", message: `"${e.type}" needs a "url"; for a "command" use "type": "stdio" or no "type"` };
  const allowed: readonly string[] = hasCommand ? STDIO_FIELDS : hasUrl ? HTTP_FIELDS : [...new Set([...STDIO_FIELDS, ...HTTP_FIELDS])];
  for (const field of Object.keys(e)) {
    if (allowed.includes(field)) continue;
    if (FOREIGN_FIELDS[field]) return { field, message: FOREIGN_FIELDS[field] };
    const other = hasCommand ? HTTP_FIELDS : hasUrl ? STDIO_FIELDS : [];
    if ((other as readonly string[]).includes(field))
      return {
        field,
        message: `unknown field for a ${hasCommand ? "stdio" : "Streamable HTTP"} server (it is for ${hasCommand ? "a url" : "a command"})`,
      };
    const hint = closest(field, allowed);
    return { field, message: `unknown field${hint ? `; did you mean "${hint}"?` : ` (a server takes ${quoted(allowed)})`}` };
  }
  if (!hasCommand && !hasUrl) return { message: 'needs "command" (a stdio server) or "url" (a Streamable HTTP server)' };
  return undefined;
}
