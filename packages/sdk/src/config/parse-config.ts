/**
 * Validating a configuration object, apart from reading one from a file (load.ts): `parseConfig`, the
 * overrides' and the resolved configuration's shapes, and `runIdFrom`. `agentd demo` and an embedding
 * program validate an object they built; this module keeps the file loader (the JSONC parser, dotenv, the
 * other tools' MCP config formats) out of what they load.
 */
import * as v from "valibot";
import { AgentdError } from "../wire/errors.ts";
import { expandEnv } from "./expand.ts";
import type { ForeignKeysNotTaken } from "./foreign-servers.ts";
import { formatIssue, issuePath } from "./format-issue.ts";
import type { AgentdConfig } from "./types.generated.ts";

/** Where the config file is looked for when `AGENT_CONFIG` and `--config` are absent. */
export const DEFAULT_CONFIG_FILE = "agentd.json";

/**
 * Settings that can come from flags or the environment; flags win. A number may be given as a flag's text
 * (`overridesFromFlags`): it is read and checked as the environment variable's would be, in the same words.
 */
export interface ConfigOverrides {
  /** `--run-id`: the run's id (else `RUN_ID`; see {@link runIdFrom}). */
  runId?: string;
  /** `--intelligence`: the model endpoint URL (`model.intelligence`). */
  intelligence?: string;
  /** `--dialect` (`model.dialect`). */
  dialect?: string;
  /** `--model` (`model.name`). */
  model?: string;
  /** The model's API key (never from a flag; see `chooseApiKey`). */
  apiKey?: string;
  /** `--instructions`. */
  instructions?: string;
  /** `--max-turns` (`limits.maxTurns`). */
  maxTurns?: number | string;
  /** `--max-tokens` (`limits.maxTokens`). */
  maxTokens?: number | string;
  /** `--deadline`, a duration such as `90s` (`limits.deadline`). */
  deadline?: string;
  /** `--max-cost`, USD (`limits.maxCostUsd`). */
  maxCostUsd?: number | string;
  /**
   * `--mcp-config` files: other tools' MCP config files (Claude Desktop, Claude Code, Cursor, Cline,
   * Windsurf, VS Code, Gemini CLI, Codex, goose, Zed) whose
   * server lists are added to agentd.json's `mcpServers`; a name defined twice is an error naming both files.
   */
  mcpConfig?: readonly string[];
  /**
   * `--mcp-config-format`: the format of the `--mcp-config` files (`claude`, `cursor`, `cline`, `windsurf`,
   * `vscode`, `gemini`, `codex`, `goose`, `zed`) — once for every file, or once a file in the same order.
   * Absent: each file's format is recognised.
   */
  mcpConfigFormat?: readonly string[];
  /** Principal ids with the operator role besides the file's `serve.operators` (`agentd serve --operators`). */
  operators?: readonly string[];
  /** Switch `capabilities.serverNotifications` on (`agentd serve --notifications`). */
  serverNotifications?: boolean;
}

/** The resolved configuration plus the values that must never be written back or logged. */
export interface ResolvedConfig {
  config: AgentdConfig;
  /** The API key for the model (see `chooseApiKey` for the order of the variables). Never logged. */
  apiKey?: string;
  /** Where the key came from, or that none was set: said beside a 401/403 from the provider. */
  apiKeyHint?: string;
  /** The file the config came from, if any. */
  file?: string;
  /** The run's id the command line or environment named: `--run-id`, else `RUN_ID` ({@link runIdFrom}). */
  runId?: string;
  /**
   * Servers of `--mcp-config` files left out, by name: one line each saying why (a variable only the editor
   * can expand, an env file that is missing). The caller tells the user; the other servers load.
   */
  skippedServers?: Record<string, string>;
  /**
   * What the entries of `--mcp-config` files had that agentd does not take, file by file (each key with
   * why). The caller tells the user: one debug line a key, one warning line a file.
   */
  foreignKeysNotTaken?: ForeignKeysNotTaken[];
  /** Servers of `--mcp-config` files renamed to names agentd can use (a VS Code gallery name `owner/server`), by the new name: the line saying so. */
  renamedServers?: Record<string, string>;
}

/** Validate a parsed config object. Throws E_CONFIG_INVALID with one clear line. */
export function parseConfig(
  raw: unknown,
  env: Record<string, string | undefined> = process.env,
  source = "config",
  options: { expand?: boolean } = {},
): AgentdConfig {
  const expanded = options.expand === false ? raw : expandEnv(raw, env, source);
  // The schema (the valibot schemas of every group of agentd.json) is built on the first validation,
  // not when this module loads: a program that validates no configuration never builds it.
  const result = v.safeParse((require("./schema.ts") as typeof import("./schema.ts")).ConfigSchema, expanded);
  if (!result.success) {
    const issue = result.issues[0]!;
    const hint = (require("./key-hint.ts") as typeof import("./key-hint.ts")).unknownKeyHint(issue);
    throw new AgentdError("E_CONFIG_INVALID", hint ? `${source}${issuePath(issue)}: ${hint}` : formatIssue(result.issues, source));
  }
  return result.output;
}

/**
 * The run's id a command line and its environment name: `--run-id` (`overrides.runId`), else `RUN_ID`, else
 * none (the run mints one). The one place `RUN_ID` is read as a run's id: `resolveConfig` answers with it, and
 * the CLI reads it here once for a run that fails before its config resolves.
 */
export function runIdFrom(
  overrides: Pick<ConfigOverrides, "runId">,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  return overrides.runId || env.RUN_ID || undefined;
}
