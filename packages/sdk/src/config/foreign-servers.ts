/**
 * The server list of another tool's MCP config file (`--mcp-config FILE`), read as that tool writes it:
 * Claude Desktop, Claude Code, Cursor, Cline, Windsurf and Gemini CLI (`mcpServers`), VS Code (`servers`),
 * Zed (`context_servers`), OpenAI Codex (`config.toml`, `[mcp_servers.NAME]`) and goose (`config.yaml`,
 * `extensions`). The format is recognised (`foreign/formats.ts`) or named (`--mcp-config-format`); each
 * tool's reader (`foreign/*.ts`) maps what has a meaning in agentd — timeouts, enabled/disabled, a bearer
 * token's variable, tool allow/deny lists — and names every key it does not take, with why. Only the server
 * list is read: the rest of the file is the other tool's. Then, for every format, the editors' variables
 * are expanded (`editor-variables.ts`), VS Code's `envFile` is read (dotenv format; the entry's `env` wins),
 * and each entry gets agentd.json's checks. A server agentd cannot run as written (a variable only the
 * editor can expand, an SSE endpoint, a goose built-in) is left out, named with the reason, while the
 * file's other servers load.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import dotenv from "dotenv";
import * as v from "valibot";
import { registerSecretValue } from "../secret-values.ts";
import { AgentdError } from "../wire/errors.ts";
import { editorContext, EditorOnlyVariable, expandEditorVariables, type EditorContext } from "./editor-variables.ts";
import { formatIssue } from "./format-issue.ts";
import { claudeReader, clineReader, vscodeReader, windsurfReader } from "./foreign/editor-json.ts";
import { codexReader } from "./foreign/codex.ts";
import type { FormatReader, IgnoredKey } from "./foreign/entry-rules.ts";
import { detectFormat, FOREIGN_FORMATS, type ForeignFormat, foreignFormat, isObject, parseForeignText } from "./foreign/formats.ts";
import { geminiReader } from "./foreign/gemini.ts";
import { gooseReader } from "./foreign/goose.ts";
import { zedReader } from "./foreign/zed.ts";
import { McpServerConfigSchema, SERVER_NAME } from "./schema.ts";
import type { McpServerConfig } from "./types.ts";

/** The servers read from one file, the format it was read as, and what was not taken. */
export interface ForeignServers {
  file: string;
  /** The tool whose format the file was read in. */
  format: ForeignFormat;
  /** The key the servers were under (`mcpServers`, `servers`, `mcp_servers`, `extensions`, `context_servers`). */
  key: string;
  servers: Record<string, McpServerConfig>;
  /** Servers left out, by name: the one line saying why (a variable only the editor can expand). */
  skipped: Record<string, string>;
  /** Keys of the entries that were not taken, each with why (see `IgnoredKey`). */
  ignored: IgnoredKey[];
  /**
   * Servers whose names agentd cannot use as written (VS Code's gallery names such as `owner/server`), by
   * the name they have here: the line saying so.
   */
  renamed: Record<string, string>;
}

const ListSchema = v.record(SERVER_NAME, McpServerConfigSchema);

/** A server left out of the list, and why. */
class SkippedServer extends Error {}

const READERS: Record<ForeignFormat, FormatReader> = {
  claude: claudeReader,
  cursor: claudeReader,
  cline: clineReader,
  windsurf: windsurfReader,
  vscode: vscodeReader,
  gemini: geminiReader,
  codex: codexReader,
  goose: gooseReader,
  zed: zedReader,
};

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
  const fromFile = dotenv.parse(text);
  // An env file holds what a server needs to authenticate: its values are secrets, as `${VAR}` values are.
  for (const value of Object.values(fromFile)) registerSecretValue(value);
  return { ...rest, env: { ...fromFile, ...own } };
}

/** A server's name in agentd: the written one, or with each run of characters a server name cannot hold as `_`. */
function agentdName(written: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(written) ? written : written.replace(/[^A-Za-z0-9_.-]+/g, "_");
}

/** The one line for a document whose format is not recognised. */
const NO_LIST =
  'no server list: expected "mcpServers" (Claude Desktop, Claude Code, Cursor, Cline, Windsurf, Gemini CLI), "servers" (VS Code), ' +
  '"context_servers" (Zed), [mcp_servers] (Codex config.toml) or "extensions" (goose config.yaml); or name the format with --mcp-config-format';

/**
 * Parse the server list out of another tool's config object: recognise the format (or take `format`), map
 * each entry to agentd's (`./foreign/*.ts`), expand the editors' variables, read VS Code's `envFile`, and
 * check the entries as agentd.json's are. `file` names it in errors and places `${workspaceFolder}`.
 */
export function parseForeignServers(
  raw: unknown,
  file: string,
  env: Record<string, string | undefined>,
  format?: ForeignFormat,
): ForeignServers {
  if (!isObject(raw)) throw new AgentdError("E_CONFIG_INVALID", `${file}: expected an object holding a server list, such as "mcpServers"`);
  const fmt = format ?? detectFormat(raw, file);
  if (!fmt) throw new AgentdError("E_CONFIG_INVALID", `${file}: ${NO_LIST}`);
  const reader = READERS[fmt];
  const key = reader.key;
  const list = raw[key];
  if (list === undefined) throw new AgentdError("E_CONFIG_INVALID", `${file}: no "${key}" (read as a ${FOREIGN_FORMATS[fmt]} file)`);
  if (!isObject(list)) throw new AgentdError("E_CONFIG_INVALID", `${file}.${key}: expected an object of servers`);
  const ctx = editorContext(resolve(file), env);
  const mapped: Record<string, unknown> = {};
  const skipped: Record<string, string> = {};
  const ignored: IgnoredKey[] = [];
  for (const [name, entry] of Object.entries(list)) {
    if (!isObject(entry)) {
      mapped[name] = entry; // the schema says what an entry is
      continue;
    }
    const own: IgnoredKey[] = [];
    const result = reader.entry(name, entry, { env, ignore: (k, why, quiet) => own.push({ server: name, key: k, why, quiet }) });
    if ("skip" in result) skipped[name] = `MCP server '${name}' (${file}) left out: ${result.skip}`;
    else {
      mapped[name] = result.entry;
      ignored.push(...own);
    }
  }
  reader.document?.(raw, mapped);
  const cleaned: Record<string, unknown> = {};
  const renamed: Record<string, string> = {};
  for (const [written, entry] of Object.entries(mapped)) {
    const name = agentdName(written);
    if (name !== written && (name in mapped || name in cleaned)) {
      skipped[written] =
        `MCP server '${written}' (${file}) left out: its name has characters agentd's server names cannot carry, and '${name}' is taken: rename it (letters, digits, _ . -)`;
      continue;
    }
    if (name !== written)
      renamed[name] =
        `MCP server '${written}' (${file}) is '${name}' here: agentd's server names use letters, digits, _ . - ('/' separates a server from its tools)`;
    const at = `${file}.${key}.${written}`;
    try {
      cleaned[name] = isObject(entry) ? withEnvFile(expandEditorVariables(entry, ctx, at), ctx, at) : entry;
    } catch (e) {
      if (e instanceof EditorOnlyVariable || e instanceof SkippedServer)
        skipped[name] = `MCP server '${written}' (${file}) left out: ${e.message}`;
      else throw e;
    }
  }
  const result = v.safeParse(ListSchema, cleaned);
  if (!result.success) throw new AgentdError("E_CONFIG_INVALID", formatIssue(result.issues, `${file}.${key}`));
  asWritten.set(result.output, cleaned as Record<string, McpServerConfig>);
  return { file, format: fmt, key, servers: result.output, skipped, ignored, renamed };
}

/**
 * Each checked list as it was written (expanded, not yet parsed): what `mergeForeignServers` hands on, since the whole
 * configuration is checked again after the merge and checked durations are milliseconds without a unit.
 */
const asWritten = new WeakMap<Record<string, McpServerConfig>, Record<string, McpServerConfig>>();

/** Read one `--mcp-config` file, in `format` when it is given (else recognised). */
export async function readForeignServers(
  file: string,
  env: Record<string, string | undefined>,
  format?: ForeignFormat,
): Promise<ForeignServers> {
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
  return parseForeignServers(await parseForeignText(text, file, format), file, env, format);
}

/** The keys of one `--mcp-config` file's entries that were not taken. */
export interface ForeignKeysNotTaken {
  file: string;
  format: ForeignFormat;
  /** The tool that writes the format, for people ("OpenAI Codex"). */
  tool: string;
  keys: IgnoredKey[];
}

/** The merged server list, the servers left out of the files (name → why), and what their entries had that agentd does not take. */
export interface MergedServers {
  servers: Record<string, McpServerConfig> | undefined;
  skipped: Record<string, string>;
  notTaken: ForeignKeysNotTaken[];
  /** Servers renamed to names agentd can use (see `ForeignServers.renamed`). */
  renamed: Record<string, string>;
}

/**
 * The format of each file: none given, each recognised; one, every file in it; else one a file, in order.
 */
function formatsFor(files: readonly string[], formats: readonly string[]): Array<ForeignFormat | undefined> {
  if (formats.length > 1 && formats.length !== files.length)
    throw new AgentdError(
      "E_USAGE",
      `--mcp-config-format given ${formats.length} times for ${files.length} --mcp-config files: give it once (for every file) or once a file, in the same order`,
    );
  const named = formats.map(foreignFormat);
  return files.map((_, i) => (named.length === 1 ? named[0] : named[i]));
}

/**
 * Add the servers of `--mcp-config` files to those of agentd.json (each as written, for the check of the
 * merged whole). A name defined twice is an error naming both files: agentd never picks one silently.
 * `formats` are `--mcp-config-format` names (see `formatsFor`).
 */
export async function mergeForeignServers(
  own: Record<string, McpServerConfig> | undefined,
  ownFile: string,
  files: readonly string[],
  env: Record<string, string | undefined>,
  formats: readonly string[] = [],
): Promise<MergedServers> {
  if (files.length === 0) {
    if (formats.length > 0)
      throw new AgentdError("E_USAGE", "--mcp-config-format names the format of --mcp-config files: give the file too");
    return { servers: own, skipped: {}, notTaken: [], renamed: {} };
  }
  const merged: Record<string, McpServerConfig> = { ...own };
  const skippedAll: Record<string, string> = {};
  const notTaken: ForeignKeysNotTaken[] = [];
  const renamedAll: Record<string, string> = {};
  const from = new Map(Object.keys(own ?? {}).map((name) => [name, ownFile]));
  const fileFormats = formatsFor(files, formats);
  for (const [i, file] of files.entries()) {
    const { servers, skipped, ignored, format, renamed } = await readForeignServers(file, env, fileFormats[i]);
    for (const name of [...Object.keys(servers), ...Object.keys(skipped)]) {
      const earlier = from.get(name);
      if (earlier !== undefined)
        throw new AgentdError("E_CONFIG_INVALID", `MCP server '${name}' is defined in both ${earlier} and ${file}: rename or remove one`);
      from.set(name, file);
    }
    Object.assign(merged, asWritten.get(servers) ?? servers);
    Object.assign(skippedAll, skipped);
    Object.assign(renamedAll, renamed);
    if (ignored.length > 0) notTaken.push({ file, format, tool: FOREIGN_FORMATS[format], keys: ignored });
  }
  return { servers: merged, skipped: skippedAll, notTaken, renamed: renamedAll };
}
