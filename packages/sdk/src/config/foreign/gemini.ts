/**
 * Gemini CLI's `settings.json` (`~/.gemini/settings.json`, `.gemini/settings.json`): `mcpServers.X` with
 * `command`/`args`/`env`/`cwd`, `httpUrl` (Streamable HTTP) or `url` (the older HTTP+SSE transport, unless
 * `"type": "http"`), `headers`, `timeout` in milliseconds, the tool lists `includeTools`/`excludeTools`, and
 * `trust` (skip Gemini's confirmations). Gemini expands `$VAR` as well as `${VAR}` in these strings: the
 * bare form is rewritten to agentd's. The top-level `mcp.excluded` (and `mcp.allowed`) switch servers off.
 */
import type { EntryContext, EntryResult, FormatReader, KeyRule } from "./entry-rules.ts";
import { isObject } from "./formats.ts";
import { mapKeys, timeoutIn, toolList } from "./entry-rules.ts";

const OWN_AUTH = "Gemini's own sign-in for the server: give agentd an oauth block or headers in agentd.json instead";

const RULES: Record<string, KeyRule> = {
  command: "same",
  args: "same",
  env: "same",
  cwd: "same",
  httpUrl: "url",
  url: "same",
  type: "same",
  headers: "same",
  timeout: timeoutIn("ms"),
  includeTools: toolList("include"),
  excludeTools: toolList("exclude"),
  trust: { why: "Gemini asks before a tool call unless trusted; agentd asks no one (limit tools with includeTools/excludeTools)" },
  description: { why: "a description for Gemini's server list", quiet: true },
  oauth: { why: OWN_AUTH },
  authProviderType: { why: OWN_AUTH },
  targetAudience: { why: OWN_AUTH },
  targetServiceAccount: { why: OWN_AUTH },
  tcp: { why: "a WebSocket transport, which agentd does not speak" },
};

/** `$NAME` (Gemini's bare form) → `${NAME}`; `${…}` and `$$` are left as they are. */
function bracedVariables(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/(^|[^$])\$([A-Za-z_][A-Za-z0-9_]*)/g, "$1${$2}");
  if (Array.isArray(value)) return value.map(bracedVariables);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bracedVariables(v)]));
  return value;
}

function entry(_name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult {
  const out = mapKeys(bracedVariables(raw) as Record<string, unknown>, RULES, ctx, "ignore");
  const sse = "url" in raw && !("httpUrl" in raw) && out.type !== "http";
  if (sse)
    return {
      skip: "its url is an HTTP+SSE endpoint (Gemini's url), a transport agentd does not speak: give the server's Streamable HTTP endpoint as httpUrl",
    };
  if ("httpUrl" in raw && "url" in raw) ctx.ignore("url", "httpUrl is used (Gemini prefers it too)");
  if ("httpUrl" in raw) out.url = bracedVariables(raw.httpUrl);
  if (out.type === "http" || out.type === "sse") delete out.type;
  return { entry: out };
}

/** `mcp.excluded` switches servers off; `mcp.allowed`, when set, switches off every server it does not name. */
function document(doc: Record<string, unknown>, entries: Record<string, unknown>): void {
  const mcp = isObject(doc.mcp) ? doc.mcp : {};
  const allowed = Array.isArray(mcp.allowed) ? new Set(mcp.allowed) : undefined;
  const excluded = new Set(Array.isArray(mcp.excluded) ? mcp.excluded : []);
  for (const [name, e] of Object.entries(entries))
    if (isObject(e) && (excluded.has(name) || (allowed && !allowed.has(name)))) e.disabled = true;
}

/** The Gemini CLI reader. */
export const geminiReader: FormatReader = { key: "mcpServers", entry, document };
