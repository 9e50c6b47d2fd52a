/**
 * goose's `config.yaml` (`~/.config/goose/config.yaml`): `extensions.NAME` with `type` — `stdio` (`cmd`,
 * `args`, `envs`), `streamable_http` (`uri`, `headers`), or goose's own kinds (`builtin`, `platform`,
 * `frontend`, `inline_python`) and `sse`, which agentd cannot run — plus `enabled`, `timeout` in seconds,
 * `env_keys` (variables goose keeps in its keyring; agentd reads them from the environment) and
 * `available_tools` (the tools to use; empty: all). The rest of the file (GOOSE_* settings) is goose's.
 */
import type { EntryContext, EntryResult, FormatReader, KeyRule } from "./entry-rules.ts";
import { enabledFlag, envFromNames, mapKeys, timeoutIn } from "./entry-rules.ts";

const LABEL = { why: "a label for goose's extension list", quiet: true };
const later = () => {}; // handled after the keys

const RULES: Record<string, KeyRule> = {
  cmd: "command",
  args: "same",
  envs: "env",
  cwd: "same",
  uri: "url",
  headers: "same",
  enabled: enabledFlag,
  timeout: timeoutIn("s"),
  type: later,
  env_keys: later,
  available_tools: (value, out) => {
    if (!Array.isArray(value) || value.length > 0) out.tools = { include: value };
  },
  name: LABEL,
  display_name: LABEL,
  description: LABEL,
  bundled: LABEL,
};

/** goose's extension kinds that are part of goose itself. */
const OWN_KINDS = ["builtin", "platform", "frontend", "inline_python"];

function entry(name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult {
  const type = raw.type ?? (raw.cmd !== undefined ? "stdio" : raw.uri !== undefined ? "streamable_http" : undefined);
  if (typeof type === "string" && OWN_KINDS.includes(type))
    return { skip: `a goose ${type} extension ('${name}'), part of goose itself, which agentd cannot run` };
  if (type === "sse")
    return {
      skip: "an HTTP+SSE extension, a transport agentd does not speak: give the server's Streamable HTTP endpoint (type streamable_http)",
    };
  if (type !== "stdio" && type !== "streamable_http")
    return { skip: `type ${JSON.stringify(type)}: agentd reads goose's stdio and streamable_http extensions` };
  const out = mapKeys(raw, RULES, ctx, "ignore");
  if (type === "stdio") {
    delete out.url;
    delete out.headers;
  } else {
    // goose writes `envs: {}` and `env_keys: []` for every extension; variables mean something to a child process only.
    if (Object.keys((out.env as object | undefined) ?? {}).length > 0 || (Array.isArray(raw.env_keys) && raw.env_keys.length > 0))
      ctx.ignore("envs", "variables for a child process; a streamable_http extension has none");
    for (const k of ["command", "args", "env", "cwd"]) delete out[k];
    return { entry: out };
  }
  const missing = envFromNames(raw.env_keys, out, ctx.env);
  if (missing.length > 0)
    return {
      skip: `needs ${missing.join(", ")} (env_keys; goose keeps them in its keyring): set ${missing.length > 1 ? "them" : "it"} in the environment`,
    };
  return { entry: out };
}

/** The goose reader. */
export const gooseReader: FormatReader = { key: "extensions", entry };
