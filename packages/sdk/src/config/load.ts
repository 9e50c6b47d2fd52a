/**
 * Load the configuration with the cloud-native precedence: flags > environment (`AGENT_*`) > config file.
 * Every failure is one clear line naming the field and what is expected (AgentdError E_CONFIG_INVALID).
 */
import { registerSecretValue } from "../secret-values.ts";
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { AgentdError } from "../wire/errors.ts";
import { chooseApiKey } from "./api-key.ts";
import { expandEnv } from "./expand.ts";
import { mergeForeignServers } from "./foreign-servers.ts";
import { issuePath, issueText } from "./format-issue.ts";
import { unknownKeyHint } from "./key-hint.ts";
import { parseJsonc } from "./parse-jsonc.ts";
import { ConfigSchema } from "./schema.ts";
import type { AgentdConfig, McpServerConfig } from "./types.generated.ts";
import { type ConfigOverrides, DEFAULT_CONFIG_FILE, parseConfig, type ResolvedConfig, runIdFrom } from "./parse-config.ts";

export { type ConfigOverrides, DEFAULT_CONFIG_FILE, parseConfig, type ResolvedConfig, runIdFrom } from "./parse-config.ts";

/** Read and validate a config file. A missing file is an error only when it was named explicitly. */
export async function readConfigFile(
  path: string,
  env: Record<string, string | undefined>,
  explicit: boolean,
): Promise<AgentdConfig | undefined> {
  return (await readExpandedConfig(path, env, explicit))?.config;
}

/**
 * A config file checked, and as written (with `${VAR}` expanded): `resolveConfig` merges flags and
 * environment into the latter and validates the whole once more — the validated form has durations in
 * milliseconds already, which a second check would refuse as numbers without a unit.
 */
async function readExpandedConfig(
  path: string,
  env: Record<string, string | undefined>,
  explicit: boolean,
): Promise<{ config: AgentdConfig; expanded: Record<string, unknown> } | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !explicit) return undefined;
    if (code === "ENOENT") throw new AgentdError("E_CONFIG_INVALID", `config file ${path} does not exist`);
    throw new AgentdError("E_CONFIG_INVALID", `config file ${path} could not be read (${code ?? (e as Error).message})`);
  }
  // JSONC, like the editors' files: comments and trailing commas are allowed (docs/configuration.md).
  const expanded = expandEnv(parseJsonc(text, path), env, path);
  const config = parseConfig(expanded, env, path, { expand: false });
  return { config, expanded: expanded as Record<string, unknown> };
}

/**
 * The settings a flag or an `AGENT_*` variable overrides: where each lives in the config, its names, and how
 * its text is read. The one table: the CLI's flags are read by it (`overridesFromFlags`), and a flag's value
 * is checked as the variable's is, in the same words.
 */
const OVERRIDES: ReadonlyArray<{
  key: Exclude<keyof ConfigOverrides, "apiKey" | "mcpConfig" | "mcpConfigFormat">;
  path: readonly [string] | readonly [string, string];
  flag: string;
  env: string;
  number?: "count" | "usd";
}> = [
  { key: "intelligence", path: ["model", "intelligence"], flag: "--intelligence", env: "AGENT_INTELLIGENCE" },
  { key: "dialect", path: ["model", "dialect"], flag: "--dialect", env: "AGENT_DIALECT" },
  { key: "model", path: ["model", "name"], flag: "--model", env: "AGENT_MODEL" },
  { key: "instructions", path: ["instructions"], flag: "--instructions", env: "AGENT_INSTRUCTIONS" },
  { key: "maxTurns", path: ["limits", "maxTurns"], flag: "--max-turns", env: "AGENT_MAX_TURNS", number: "count" },
  { key: "maxTokens", path: ["limits", "maxTokens"], flag: "--max-tokens", env: "AGENT_MAX_TOKENS", number: "count" },
  { key: "deadline", path: ["limits", "deadline"], flag: "--deadline", env: "AGENT_DEADLINE" },
  { key: "maxCostUsd", path: ["limits", "maxCostUsd"], flag: "--max-cost", env: "AGENT_MAX_COST_USD", number: "usd" },
];

/**
 * The overrides a command line's flags give, by the table (`--max-turns 5` → `maxTurns: "5"`); `flags` maps
 * flag names without dashes to their values, as a flag parser returns them. Checked by `resolveConfig`.
 */
export function overridesFromFlags(flags: Readonly<Record<string, unknown>>): ConfigOverrides {
  const out: Record<string, string> = {};
  for (const f of OVERRIDES) {
    const value = flags[f.flag.slice(2)];
    if (typeof value === "string") out[f.key] = value;
  }
  if (typeof flags["run-id"] === "string" && flags["run-id"]) out.runId = flags["run-id"];
  return out as ConfigOverrides;
}

/** A number from a flag's or a variable's text; a non-number is an error naming it (not NaN later). */
function overrideNumber(name: string, raw: string, kind: "count" | "usd"): number {
  const text = raw.trim();
  const n = Number(text);
  if (kind === "count" && (!/^\d+$/.test(text) || n < 1))
    throw new AgentdError("E_CONFIG_INVALID", `${name}: expected a whole number of at least 1`);
  if (kind === "usd" && (text === "" || !Number.isFinite(n) || n < 0))
    throw new AgentdError("E_CONFIG_INVALID", `${name}: expected a number of USD, 0 or more`);
  return n;
}

/**
 * Resolve the configuration: file (from `--config`, else AGENT_CONFIG, else ./agentd.json if present),
 * plus the server lists of `--mcp-config` files, then environment, then flags. An error names where the
 * bad value came from: the flag, the variable, or the file's field.
 */
export async function resolveConfig(
  options: { configPath?: string; overrides?: ConfigOverrides; env?: Record<string, string | undefined> } = {},
): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const named = options.configPath ?? env.AGENT_CONFIG;
  const path = named ?? DEFAULT_CONFIG_FILE;
  const read = await readExpandedConfig(path, env, named !== undefined);
  const o = options.overrides ?? {};
  // Sections are copied before an override is written into them: the file's object stays as read.
  const merged: Record<string, unknown> = { ...read?.expanded };
  const { servers, skipped, notTaken, renamed } = await mergeForeignServers(
    read?.expanded.mcpServers as Record<string, McpServerConfig> | undefined,
    path,
    o.mcpConfig ?? [],
    env,
    o.mcpConfigFormat ?? [],
  );
  if (servers) merged.mcpServers = servers;
  // Operators named on the command line join the file's; notifications are switched on, never off.
  if (o.operators?.length) {
    const serve = merged.serve as { operators?: string[] } | undefined;
    merged.serve = { ...serve, operators: [...o.operators, ...(serve?.operators ?? [])] };
  }
  if (o.serverNotifications) merged.capabilities = { ...(merged.capabilities as object | undefined), serverNotifications: true };
  /** Dotted config path → the flag or variable its value came from. */
  const sources = new Map<string, string>();
  for (const f of OVERRIDES) {
    const given = o[f.key];
    const source = given !== undefined ? f.flag : f.env;
    const raw = given ?? (env[f.env] || undefined);
    const value = typeof raw === "string" && f.number ? overrideNumber(source, raw, f.number) : raw;
    if (value === undefined) continue;
    const [section, field] = f.path;
    if (field === undefined) merged[section] = value;
    else merged[section] = { ...(merged[section] as object | undefined), [field]: value };
    sources.set(f.path.join("."), source);
  }
  // Re-validate the merged result so flag and env values get the same checks as the file.
  const result = v.safeParse(ConfigSchema, merged);
  if (!result.success) {
    const issue = result.issues[0]!;
    const source = sources.get((issue.path ?? []).map((p) => String(p.key)).join("."));
    const text = unknownKeyHint(issue) ?? issueText(issue);
    throw new AgentdError("E_CONFIG_INVALID", source ? `${source}: ${text}` : `${read ? path : "config"}${issuePath(issue)}: ${text}`);
  }
  const config = result.output;
  const { apiKey, hint: apiKeyHint } = chooseApiKey(config.model, env, o.apiKey);
  if (apiKey) registerSecretValue(apiKey);
  const runId = runIdFrom(o, env);
  const left = {
    ...(Object.keys(skipped).length > 0 ? { skippedServers: skipped } : {}),
    ...(notTaken.length > 0 ? { foreignKeysNotTaken: notTaken } : {}),
    ...(Object.keys(renamed).length > 0 ? { renamedServers: renamed } : {}),
  };
  return { config, ...(apiKey ? { apiKey } : {}), apiKeyHint, ...(read ? { file: path } : {}), ...(runId ? { runId } : {}), ...left };
}
