/**
 * Load the configuration with the cloud-native precedence: flags > environment (`AGENT_*`) > config file.
 * Every failure is one clear line naming the field and what is expected (AgentdError E_CONFIG_INVALID).
 */
import { readFile } from "node:fs/promises";
import * as v from "valibot";
import { AgentdError } from "../wire/errors.ts";
import { expandEnv } from "./expand.ts";
import { type AgentdConfig, ConfigSchema } from "./schema.ts";

/** Where the config file is looked for when `AGENT_CONFIG` and `--config` are absent. */
export const DEFAULT_CONFIG_FILE = "agentd.json";

/** Settings that can come from flags or the environment; flags win. */
export interface ConfigOverrides {
  intelligence?: string;
  dialect?: string;
  model?: string;
  apiKey?: string;
  instructions?: string;
  maxTurns?: number;
  maxTokens?: number;
  deadline?: string;
  maxCostUsd?: number;
}

/** The resolved configuration plus the values that must never be written back or logged. */
export interface ResolvedConfig {
  config: AgentdConfig;
  /** The API key for the model (from AGENT_API_KEY, the flag, or `model.apiKeyEnv`). Never logged. */
  apiKey?: string;
  /** The file the config came from, if any. */
  file?: string;
  /** RUN_ID from the environment, if set. */
  runId?: string;
}

/** Render the first valibot issue as "field.path: expected …". */
export function formatIssue(issues: v.BaseIssue<unknown>[], root = "config"): string {
  const issue = issues[0];
  if (!issue) return `${root}: invalid`;
  const path = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
  let what = issue.message;
  if (issue.kind === "schema" && issue.type === "strict_object" && issue.input !== undefined)
    what = `unknown field (allowed: see docs/configuration.md)`;
  if (issue.type === "union" && issue.issues?.length) {
    // Prefer the union's own message when it names the alternatives.
    what = issue.message.startsWith("Invalid") ? formatIssue(issue.issues as v.BaseIssue<unknown>[], "").replace(/^: /, "") : issue.message;
  }
  return `${root}${path}: ${what}`;
}

/** Validate a parsed config object. Throws E_CONFIG_INVALID with one clear line. */
export function parseConfig(
  raw: unknown,
  env: Record<string, string | undefined> = process.env,
  source = "config",
  options: { expand?: boolean } = {},
): AgentdConfig {
  const expanded = options.expand === false ? raw : expandEnv(raw, env, source);
  const result = v.safeParse(ConfigSchema, expanded);
  if (!result.success) throw new AgentdError("E_CONFIG_INVALID", formatIssue(result.issues, source));
  return result.output;
}

/** Read and validate a config file. A missing file is an error only when it was named explicitly. */
export async function readConfigFile(path: string, env: Record<string, string | undefined>, explicit: boolean): Promise<AgentdConfig | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !explicit) return undefined;
    if (code === "ENOENT") throw new AgentdError("E_CONFIG_INVALID", `config file ${path} does not exist`);
    throw new AgentdError("E_CONFIG_INVALID", `config file ${path} could not be read (${code ?? (e as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new AgentdError("E_CONFIG_INVALID", `${path}: not valid JSON (${(e as Error).message})`);
  }
  return parseConfig(raw, env, path);
}

/**
 * Resolve the configuration: file (from `--config`, else AGENT_CONFIG, else ./agentd.json if present),
 * then environment, then flags.
 */
export async function resolveConfig(
  options: { configPath?: string; overrides?: ConfigOverrides; env?: Record<string, string | undefined> } = {},
): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const named = options.configPath ?? env.AGENT_CONFIG;
  const path = named ?? DEFAULT_CONFIG_FILE;
  const read = await readConfigFile(path, env, named !== undefined);
  const fromFile: AgentdConfig = read ?? {};
  const o = options.overrides ?? {};
  const pick = <T>(flag: T | undefined, envValue: T | undefined, file: T | undefined) => flag ?? envValue ?? file;
  const envNum = (name: string) => (env[name] !== undefined && env[name] !== "" ? Number(env[name]) : undefined);

  const merged = {
    ...fromFile,
    model: {
      ...fromFile.model,
      intelligence: pick(o.intelligence, env.AGENT_INTELLIGENCE || undefined, fromFile.model?.intelligence),
      dialect: pick(o.dialect, env.AGENT_DIALECT || undefined, fromFile.model?.dialect),
      name: pick(o.model, env.AGENT_MODEL || undefined, fromFile.model?.name),
    },
    instructions: pick(o.instructions, env.AGENT_INSTRUCTIONS || undefined, fromFile.instructions),
    limits: {
      ...fromFile.limits,
      maxTurns: pick(o.maxTurns, envNum("AGENT_MAX_TURNS"), fromFile.limits?.maxTurns),
      maxTokens: pick(o.maxTokens, envNum("AGENT_MAX_TOKENS"), fromFile.limits?.maxTokens),
      deadline: pick<string | number>(o.deadline, env.AGENT_DEADLINE || undefined, fromFile.limits?.deadline),
      maxCostUsd: pick(o.maxCostUsd, envNum("AGENT_MAX_COST_USD"), fromFile.limits?.maxCostUsd),
    },
  };
  // Re-validate the merged result so flag and env values get the same checks as the file.
  const config = parseConfig(stripUndefined(merged), env, "settings", { expand: false });
  const keyEnv = config.model?.apiKeyEnv;
  const apiKey = o.apiKey ?? (env.AGENT_API_KEY || undefined) ?? (keyEnv ? env[keyEnv] || undefined : undefined);
  const runId = env.RUN_ID || undefined;
  return { config, ...(apiKey ? { apiKey } : {}), ...(read ? { file: path } : {}), ...(runId ? { runId } : {}) };
}

function stripUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      const s = stripUndefined(v);
      // Drop only objects that held nothing but unset overrides; an empty object the user wrote
      // (e.g. "subagents": {}) means "on with defaults" and is kept.
      if (s && typeof s === "object" && !Array.isArray(s) && Object.keys(s).length === 0 && Object.keys(v as object).length > 0) continue;
      out[k] = s;
    }
    return out;
  }
  return value;
}
