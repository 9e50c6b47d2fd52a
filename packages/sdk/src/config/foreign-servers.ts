/**
 * The server list of another tool's MCP config file (`--mcp-config FILE`): Claude Desktop, Claude Code
 * (`.mcp.json`, `~/.claude.json`), Cursor and Cline keep it under `mcpServers`; VS Code (`.vscode/mcp.json`)
 * under `servers`. Only that list is read: every other key of the file (VS Code's `inputs`, Claude's
 * preferences, projects …) is ignored. Each entry gets the same checks as one in `agentd.json`, except
 * that settings which belong to the other tool and change nothing here (`autoApprove`, `alwaysAllow`,
 * `timeout`, VS Code's `dev`) are dropped. VS Code's `${env:NAME}` reads the environment like `${NAME}`;
 * `${input:…}` (a prompt VS Code shows) is refused, naming it.
 */
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { AgentdError } from "../wire/errors.ts";
import { expandEnv } from "./expand.ts";
import { formatIssue } from "./format-issue.ts";
import { type McpServerConfig, McpServerConfigSchema, SERVER_NAME } from "./schema.ts";

/** Per-server settings of other tools that agentd can safely leave out. */
export const IGNORED_FOREIGN_FIELDS = ["autoApprove", "alwaysAllow", "timeout", "dev"] as const;

/** The servers read from one file, and the key they were under. */
export interface ForeignServers {
  file: string;
  key: "mcpServers" | "servers";
  servers: Record<string, McpServerConfig>;
}

const ListSchema = v.record(SERVER_NAME, McpServerConfigSchema);

/** Every string inside `value`, with the dotted path it sits at. */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === "string") yield [path, value];
  else if (Array.isArray(value)) for (const [i, x] of value.entries()) yield* strings(x, `${path}[${i}]`);
  else if (value && typeof value === "object") for (const [k, x] of Object.entries(value)) yield* strings(x, `${path}.${k}`);
}

/** `${env:NAME}` (VS Code, Cursor) → `${NAME}`, everywhere inside `value`. */
function envSyntax(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "$${$1}");
  if (Array.isArray(value)) return value.map(envSyntax);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, envSyntax(x)]));
  return value;
}

/** Parse the server list out of another tool's config object. `file` names it in errors. */
export function parseForeignServers(raw: unknown, file: string, env: Record<string, string | undefined>): ForeignServers {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new AgentdError("E_CONFIG_INVALID", `${file}: expected a JSON object with "mcpServers" or "servers"`);
  const doc = raw as Record<string, unknown>;
  const key = "mcpServers" in doc ? "mcpServers" : "servers" in doc ? "servers" : undefined;
  if (!key)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `${file}: no server list: expected "mcpServers" (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code)`,
    );
  const list = doc[key];
  if (!list || typeof list !== "object" || Array.isArray(list)) throw new AgentdError("E_CONFIG_INVALID", `${file}.${key}: expected an object of servers`);
  const cleaned: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(list)) {
    if (entry && typeof entry === "object" && !Array.isArray(entry)) {
      const kept = Object.fromEntries(Object.entries(entry).filter(([k]) => !(IGNORED_FOREIGN_FIELDS as readonly string[]).includes(k)));
      for (const [at, s] of strings(kept, `${file}.${key}.${name}`)) {
        const input = /\$\{input:[^}]*\}/.exec(s);
        if (input)
          throw new AgentdError(
            "E_CONFIG_INVALID",
            `${at}: ${input[0]} is a VS Code input prompt, which agentd cannot show: use \${VAR} to read the value from the environment`,
          );
      }
      cleaned[name] = envSyntax(kept);
    } else cleaned[name] = entry;
  }
  const expanded = expandEnv(cleaned, env, `${file}.${key}`);
  const result = v.safeParse(ListSchema, expanded);
  if (!result.success) throw new AgentdError("E_CONFIG_INVALID", formatIssue(result.issues, `${file}.${key}`));
  asWritten.set(result.output, expanded as Record<string, McpServerConfig>);
  return { file, key, servers: result.output };
}

/**
 * Each checked list as it was written (expanded): what `mergeForeignServers` hands on, since the whole
 * configuration is checked again after the merge and checked durations are milliseconds without a unit.
 */
const asWritten = new WeakMap<Record<string, McpServerConfig>, Record<string, McpServerConfig>>();

/** Read one `--mcp-config` file. */
export async function readForeignServers(file: string, env: Record<string, string | undefined>): Promise<ForeignServers> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new AgentdError("E_CONFIG_INVALID", code === "ENOENT" ? `--mcp-config ${file}: no such file` : `--mcp-config ${file}: cannot be read (${code ?? (e as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AgentdError("E_CONFIG_INVALID", `${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseForeignServers(raw, file, env);
}

/**
 * Add the servers of `--mcp-config` files to those of agentd.json (each as written, for the check of the
 * merged whole). A name defined twice is an error naming both files: agentd never picks one silently.
 */
export async function mergeForeignServers(
  own: Record<string, McpServerConfig> | undefined,
  ownFile: string,
  files: readonly string[],
  env: Record<string, string | undefined>,
): Promise<Record<string, McpServerConfig> | undefined> {
  if (files.length === 0) return own;
  const merged: Record<string, McpServerConfig> = { ...own };
  const from = new Map(Object.keys(own ?? {}).map((name) => [name, ownFile]));
  for (const file of files) {
    const { servers } = await readForeignServers(file, env);
    for (const [name, entry] of Object.entries(asWritten.get(servers) ?? servers)) {
      const earlier = from.get(name);
      if (earlier !== undefined)
        throw new AgentdError("E_CONFIG_INVALID", `MCP server '${name}' is defined in both ${earlier} and ${file}: rename or remove one`);
      from.set(name, file);
      merged[name] = entry;
    }
  }
  return merged;
}
