/**
 * Zed's `settings.json` (`~/.config/zed/settings.json`, a project's `.zed/settings.json`; JSONC):
 * `context_servers.NAME` with `command`/`args`/`env` or `url`/`headers`, `enabled`, and `source`
 * (`"custom"`, or `"extension"`: a server a Zed extension provides, which agentd cannot run). Older Zed wrote
 * the command as an object, `"command": { "path", "args", "env" }`, beside extension `settings`; both forms
 * are read. The rest of the file (themes, languages, agent settings …) is Zed's.
 */
import type { EntryContext, EntryResult, FormatReader, KeyRule } from "./entry-rules.ts";
import { enabledFlag, mapKeys } from "./entry-rules.ts";
import { isObject } from "./formats.ts";

const RULES: Record<string, KeyRule> = {
  command: (value, out) => {
    if (!isObject(value)) {
      out.command = value;
      return;
    }
    // The older form: the command as { path, args, env }.
    const { path, args, env } = value;
    out.command = path;
    if (args !== undefined) out.args = args;
    if (env !== undefined) out.env = { ...(env as object), ...(out.env as object | undefined) };
  },
  args: "same",
  env: (value, out) => {
    out.env = { ...(out.env as object | undefined), ...(isObject(value) ? value : {}) };
  },
  url: "same",
  headers: "same",
  enabled: enabledFlag,
  source: { why: "where Zed takes the server from", quiet: true },
  settings: { why: "settings for a Zed extension's server" },
};

function entry(name: string, raw: Record<string, unknown>, ctx: EntryContext): EntryResult {
  if (raw.source === "extension" || (raw.command === undefined && raw.url === undefined))
    return { skip: `provided by a Zed extension ('${name}'), which agentd cannot run: give it a command (or url) of its own` };
  return { entry: mapKeys(raw, RULES, ctx, "ignore") };
}

/** The Zed reader. */
export const zedReader: FormatReader = { key: "context_servers", entry };
