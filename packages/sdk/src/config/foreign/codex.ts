/**
 * OpenAI Codex's `config.toml` (`~/.codex/config.toml`, `.codex/config.toml`): `[mcp_servers.NAME]` tables
 * with `command`/`args`/`env`/`cwd` (stdio) or `url` (Streamable HTTP), `bearer_token_env_var` (the variable
 * holding a bearer token: agentd sends `Authorization: Bearer ${VAR}`), `http_headers` and `env_http_headers`
 * (a header's value from a variable), `env_vars` (variables passed on from the environment),
 * `tool_timeout_sec`, `enabled`, `required`, and the tool lists `enabled_tools`/`disabled_tools`. The rest
 * of the file (model, sandbox, profiles …) is Codex's and not read.
 */
import type { EntryContext, EntryResult, FormatReader, KeyRule } from "./entry-rules.ts";
import { enabledFlag, envFromNames, mapKeys, timeoutIn, toolList } from "./entry-rules.ts";
import { isObject } from "./formats.ts";

const STARTUP = "how long Codex waits for the server to start; agentd gives a server 30s to connect";
const OWN_AUTH = "Codex's own OAuth login for the server: give agentd an oauth block in agentd.json instead";
const later = () => {}; // handled after the keys, when `env` and `headers` are known

const RULES: Record<string, KeyRule> = {
  command: "same",
  args: "same",
  env: "same",
  cwd: "same",
  url: "same",
  required: "same",
  enabled: enabledFlag,
  tool_timeout_sec: timeoutIn("s"),
  enabled_tools: toolList("include"),
  disabled_tools: toolList("exclude"),
  http_headers: (value, out) => {
    out.headers = { ...(out.headers as object | undefined), ...(isObject(value) ? value : {}) };
  },
  env_vars: later,
  env_http_headers: later,
  bearer_token_env_var: later,
  startup_timeout_sec: { why: STARTUP },
  startup_timeout_ms: { why: STARTUP },
  oauth: { why: OWN_AUTH },
  scopes: { why: OWN_AUTH },
  oauth_resource: { why: OWN_AUTH },
  tools: { why: "Codex's per-tool approval settings; agentd asks no one before a tool call" },
};

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function entry(_name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult {
  const out = mapKeys(raw, RULES, ctx, "ignore");
  envFromNames(raw.env_vars, out, ctx.env); // Codex passes on those that are set
  const headers: Record<string, unknown> = { ...(out.headers as object | undefined) };
  if (isObject(raw.env_http_headers))
    for (const [header, variable] of Object.entries(raw.env_http_headers)) {
      if (typeof variable === "string" && VARIABLE.test(variable) && ctx.env[variable]) headers[header] = `\${${variable}}`;
      // Codex sends no such header either; said, since a server may refuse the requests without it.
      else
        ctx.ignore(
          "env_http_headers",
          `${header}: ${typeof variable === "string" ? variable : "its variable"} is not set, so the header is not sent`,
        );
    }
  const bearer = raw.bearer_token_env_var;
  if (bearer !== undefined) {
    if (typeof bearer !== "string" || !VARIABLE.test(bearer))
      return { skip: "bearer_token_env_var: expected the name of an environment variable" };
    if (!ctx.env[bearer]) return { skip: `bearer_token_env_var names ${bearer}, which is not set: set it in the environment` };
    headers.Authorization = `Bearer \${${bearer}}`;
  }
  if (Object.keys(headers).length > 0) out.headers = headers;
  return { entry: out };
}

/** The Codex reader. */
export const codexReader: FormatReader = { key: "mcp_servers", entry };
