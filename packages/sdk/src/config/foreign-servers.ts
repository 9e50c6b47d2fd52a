/**
 * The server list of another tool's MCP config file (`--mcp-config FILE`): Claude Desktop, Claude Code
 * (`.mcp.json`, `~/.claude.json`), Cursor and Cline keep it under `mcpServers`; VS Code (`.vscode/mcp.json`)
 * under `servers`. Only that list is read: every other key of the file (VS Code's `inputs`, Claude's
 * preferences, projects …) is ignored. The file is JSONC (comments, trailing commas), as editors write it.
 * Each entry gets the same checks as one in `agentd.json`, except that settings which belong to the other
 * tool and change nothing here (`autoApprove`, `alwaysAllow`, `timeout`, VS Code's `dev`) are dropped, the
 * editors' variables are expanded (`editor-variables.ts`), and VS Code's `envFile` is read (dotenv format,
 * the one VS Code reads; the entry's `env` wins over it). A server that uses a variable only the editor can
 * expand (`${input:…}`, `${command:…}`) is left out, named with the reason, while the file's other servers load.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import dotenv from "dotenv";
import * as v from "valibot";
import { AgentdError } from "../wire/errors.ts";
import { editorContext, EditorOnlyVariable, expandEditorVariables, type EditorContext } from "./editor-variables.ts";
import { formatIssue } from "./format-issue.ts";
import { parseJsonc } from "./parse-jsonc.ts";
import { McpServerConfigSchema, SERVER_NAME } from "./servers-schema.ts";
import type { McpServerConfig } from "./types.generated.ts";

/** Per-server settings of other tools that agentd can safely leave out. */
export const IGNORED_FOREIGN_FIELDS = ["autoApprove", "alwaysAllow", "timeout", "dev"] as const;

/** The servers read from one file, and the key they were under. */
export interface ForeignServers {
  file: string;
  key: "mcpServers" | "servers";
  servers: Record<string, McpServerConfig>;
  /** Servers left out, by name: the one line saying why (a variable only the editor can expand). */
  skipped: Record<string, string>;
}

const ListSchema = v.record(SERVER_NAME, McpServerConfigSchema);

/** A server left out of the list, and why. */
class SkippedServer extends Error {}

/** VS Code's `envFile`: its variables under the entry's `env` (which wins); the file path relative to the workspace. */
function withEnvFile(entry: Record<string, unknown>, ctx: EditorContext, at: string): Record<string, unknown> {
  const { envFile, ...rest } = entry;
  if (envFile === undefined) return entry;
  if (typeof envFile !== "string") throw new AgentdError("E_CONFIG_INVALID", `${at}.envFile: expected the path of an env file`);
  const path = isAbsolute(envFile) ? envFile : resolve(ctx.workspaceFolder, envFile);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new SkippedServer(
      `${at}.envFile: ${path} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? (e as Error).message})`}`,
    );
  }
  const own = rest.env && typeof rest.env === "object" && !Array.isArray(rest.env) ? (rest.env as Record<string, unknown>) : {};
  return { ...rest, env: { ...dotenv.parse(text), ...own } };
}

/** Parse the server list out of another tool's config object. `file` names it in errors and places `${workspaceFolder}`. */
export function parseForeignServers(raw: unknown, file: string, env: Record<string, string | undefined>): ForeignServers {
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw new AgentdError("E_CONFIG_INVALID", `${file}: expected a JSON object with "mcpServers" or "servers"`);
  const doc = raw as Record<string, unknown>;
  const key = "mcpServers" in doc ? "mcpServers" : "servers" in doc ? "servers" : undefined;
  if (!key)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      `${file}: no server list: expected "mcpServers" (Claude Desktop, Claude Code, Cursor) or "servers" (VS Code)`,
    );
  const list = doc[key];
  if (!list || typeof list !== "object" || Array.isArray(list))
    throw new AgentdError("E_CONFIG_INVALID", `${file}.${key}: expected an object of servers`);
  const ctx = editorContext(resolve(file), env);
  const cleaned: Record<string, unknown> = {};
  const skipped: Record<string, string> = {};
  for (const [name, entry] of Object.entries(list)) {
    const at = `${file}.${key}.${name}`;
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      cleaned[name] = entry;
      continue;
    }
    const kept = Object.fromEntries(Object.entries(entry).filter(([k]) => !(IGNORED_FOREIGN_FIELDS as readonly string[]).includes(k)));
    try {
      cleaned[name] = withEnvFile(expandEditorVariables(kept, ctx, at), ctx, at);
    } catch (e) {
      if (e instanceof EditorOnlyVariable) skipped[name] = `MCP server '${name}' (${file}) left out: ${e.message}`;
      else if (e instanceof SkippedServer) skipped[name] = `MCP server '${name}' (${file}) left out: ${e.message}`;
      else throw e;
    }
  }
  const result = v.safeParse(ListSchema, cleaned);
  if (!result.success) throw new AgentdError("E_CONFIG_INVALID", formatIssue(result.issues, `${file}.${key}`));
  asWritten.set(result.output, cleaned as Record<string, McpServerConfig>);
  return { file, key, servers: result.output, skipped };
}

/**
 * Each checked list as it was written (expanded, not yet parsed): what `mergeForeignServers` hands on, since the whole
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
    throw new AgentdError(
      "E_CONFIG_INVALID",
      code === "ENOENT" ? `--mcp-config ${file}: no such file` : `--mcp-config ${file}: cannot be read (${code ?? (e as Error).message})`,
    );
  }
  return parseForeignServers(parseJsonc(text, file), file, env);
}

/** The merged server list, and the servers left out of editor files (name → why). */
export interface MergedServers {
  servers: Record<string, McpServerConfig> | undefined;
  skipped: Record<string, string>;
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
): Promise<MergedServers> {
  if (files.length === 0) return { servers: own, skipped: {} };
  const merged: Record<string, McpServerConfig> = { ...own };
  const skippedAll: Record<string, string> = {};
  const from = new Map(Object.keys(own ?? {}).map((name) => [name, ownFile]));
  for (const file of files) {
    const { servers, skipped } = await readForeignServers(file, env);
    for (const name of [...Object.keys(servers), ...Object.keys(skipped)]) {
      const earlier = from.get(name);
      if (earlier !== undefined)
        throw new AgentdError("E_CONFIG_INVALID", `MCP server '${name}' is defined in both ${earlier} and ${file}: rename or remove one`);
      from.set(name, file);
    }
    Object.assign(merged, asWritten.get(servers) ?? servers);
    Object.assign(skippedAll, skipped);
  }
  return { servers: merged, skipped: skippedAll };
}
