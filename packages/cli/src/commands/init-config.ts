/**
 * What `agentd init` writes, as pure functions: the answers (from prompts or flags), their defaults, the
 * `agentd.json` they make, and its validation with the SDK's own schema. The API key itself never appears:
 * only the name of the environment variable that holds it.
 */
import { AgentdError, parseConfig, type AgentdConfig, type McpServerConfig } from "@agentd/sdk";
import { isLoopbackHost } from "@agentd/sdk/transport";
import { existsSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The dialects the model adapters speak. */
export const DIALECTS = ["openai", "responses", "anthropic", "gemini"] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The default model endpoint: a local OpenAI-compatible server (Ollama's port). */
export const DEFAULT_INTELLIGENCE = "http://127.0.0.1:11434/v1";
/** The default model for a local endpoint (none for a remote one: the person names it). */
export const DEFAULT_OPENAI_MODEL = "qwen3";

/** Everything `init` asks. */
export interface InitAnswers {
  dialect: Dialect;
  /** Model endpoint URL; absent means the provider's own endpoint (anthropic, gemini). */
  intelligence?: string;
  model?: string;
  /** The name of the environment variable holding the API key (never the key). */
  apiKeyEnv?: string;
  /** MCP servers: a name and a command line or an http(s) URL. */
  servers: Array<{ name: string; target: string }>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SERVER_NAME = /^[A-Za-z0-9_.-]+$/;

/** The dialect a URL suggests (`api.anthropic.com` → anthropic …), else openai. */
export function guessDialect(url: string | undefined): Dialect {
  if (url?.includes("anthropic.com")) return "anthropic";
  if (url?.includes("googleapis.com")) return "gemini";
  return "openai";
}

const isLoopback = (url: string | undefined) => !!url && /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/.test(url);

/** Defaults that depend on earlier answers. */
export function defaultsFor(dialect: Dialect, intelligence?: string): { intelligence?: string; model?: string; apiKeyEnv?: string } {
  if (dialect === "anthropic") return { apiKeyEnv: "ANTHROPIC_API_KEY" };
  if (dialect === "gemini") return { apiKeyEnv: "GEMINI_API_KEY" };
  if (dialect === "responses") return { apiKeyEnv: "OPENAI_API_KEY" };
  // A local server gets the local defaults; a remote one needs a key and a model name the person chooses.
  return isLoopback(intelligence ?? DEFAULT_INTELLIGENCE)
    ? { intelligence: DEFAULT_INTELLIGENCE, model: DEFAULT_OPENAI_MODEL }
    : { intelligence: DEFAULT_INTELLIGENCE, apiKeyEnv: "OPENAI_API_KEY" };
}

/** Why an endpoint is not usable, or undefined. */
export function checkUrl(value: string | undefined, what = "the model endpoint"): string | undefined {
  if (!value) return undefined;
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:" ? undefined : `${what} must be an http(s) URL such as ${DEFAULT_INTELLIGENCE}`;
  } catch {
    return `${what} must be a URL such as ${DEFAULT_INTELLIGENCE}`;
  }
}

/** Why an API-key variable name is not usable, or undefined. The value is never repeated: it may be a key. */
export function checkKeyEnv(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (/^sk[-_]/i.test(value) || (value.length >= 20 && /[a-z]/.test(value) && /\d/.test(value)))
    return "that looks like an API key; enter the NAME of the environment variable that holds it (e.g. OPENAI_API_KEY)";
  return ENV_NAME.test(value) ? undefined : "an environment variable name uses letters, digits and _ (e.g. OPENAI_API_KEY)";
}

/** Why a server name is not usable, or undefined. */
export function checkServerName(value: string | undefined): string | undefined {
  return value && SERVER_NAME.test(value) ? undefined : "a server name uses letters, digits, _ . - (e.g. fs)";
}

/** Split a command line into words: whitespace separates, single and double quotes group, `\` escapes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: '"' | "'" | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote) throw new AgentdError("E_USAGE", `unclosed ${quote} in the command line: ${line}`);
  if (started) words.push(word);
  return words;
}

/**
 * Why an MCP server URL is not usable, or undefined. The same rule agentd applies when it connects:
 * plain http:// only on loopback, so init never writes a config that `agentd run` would refuse.
 */
export function checkServerUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "not a valid URL (e.g. https://tools.example/mcp)";
  }
  if (u.protocol === "http:" && !isLoopbackHost(u.hostname))
    return `plain http:// is allowed only on loopback (127.0.0.1, localhost, [::1]); use ${url.replace(/^http:/i, "https:")}`;
  return undefined;
}

/** An `mcpServers` entry from a command line or an http(s) URL. */
export function serverEntry(target: string): McpServerConfig {
  const t = target.trim();
  if (/^https?:\/\//i.test(t)) {
    const problem = checkServerUrl(t);
    if (problem) throw new AgentdError("E_USAGE", problem);
    return { url: t };
  }
  const [command, ...args] = splitCommandLine(t);
  if (!command)
    throw new AgentdError(
      "E_USAGE",
      "an MCP server needs a command line (e.g. npx -y @modelcontextprotocol/server-filesystem /data) or a URL",
    );
  return args.length ? { command, args } : { command };
}

/** `NAME=COMMAND LINE` or `NAME=URL` (the `--server` flag). */
export function parseServerFlag(text: string): { name: string; target: string } {
  const eq = text.indexOf("=");
  const name = eq > 0 ? text.slice(0, eq) : "";
  const target = text.slice(eq + 1).trim();
  if (eq <= 0 || !target)
    throw new AgentdError(
      "E_USAGE",
      `--server expects NAME=COMMAND or NAME=URL, e.g. --server 'fs=npx -y @modelcontextprotocol/server-filesystem /data'`,
    );
  const bad = checkServerName(name);
  if (bad) throw new AgentdError("E_USAGE", `--server ${name}: ${bad}`);
  // Checked here, before any question is asked, so the error names the flag.
  try {
    serverEntry(target);
  } catch (e) {
    throw AgentdError.isInstance(e) ? new AgentdError(e.code, `--server ${name}: ${e.message}`) : e;
  }
  return { name, target };
}

/** Where a project that installs agentd has the JSON Schema `@agentd/cli` ships, from its root. */
export const CONFIG_SCHEMA = "./node_modules/@agentd/cli/schema/agentd-config.v1.json";

/** The schema file of the running CLI itself (a checkout or an installed package; a compiled binary has none on disk). */
const OWN_SCHEMA = fileURLToPath(new URL("../../schema/agentd-config.v1.json", import.meta.url));

/**
 * What `$schema` of a new agentd.json names, so editors complete and check the file (docs/configuration.md,
 * "Editor support"): the JSON Schema `@agentd/cli` ships (generated from the config schema,
 * `scripts/config-schema.ts`), as a path relative to the file that exists — the project's installed copy
 * (its folder or one above it), else the running CLI's own. Undefined when neither exists on disk (the
 * compiled binary in a folder without node_modules): a `$schema` naming a missing file helps no editor.
 */
export function schemaRefFor(configPath: string, own = OWN_SCHEMA): string | undefined {
  const dir = dirname(resolve(configPath));
  for (let at = dir; ; at = dirname(at)) {
    const installed = join(at, CONFIG_SCHEMA);
    if (existsSync(installed)) return relativeRef(dir, installed);
    if (dirname(at) === at) break;
  }
  return existsSync(own) ? relativeRef(dir, own) : undefined;
}

const relativeRef = (from: string, to: string) => {
  const rel = relative(from, to).split(sep).join("/");
  return rel.startsWith(".") ? rel : `./${rel}`;
};

/**
 * The configuration the answers describe, validated with the same schema `agentd run` loads it with
 * (without `${VAR}` expansion: references stay for run time). Throws E_CONFIG_INVALID / E_USAGE.
 */
export function configFromAnswers(a: InitAnswers, source = "agentd.json", schemaRef?: string): AgentdConfig {
  const urlProblem = checkUrl(a.intelligence);
  if (urlProblem) throw new AgentdError("E_USAGE", urlProblem);
  const keyProblem = checkKeyEnv(a.apiKeyEnv);
  if (keyProblem) throw new AgentdError("E_USAGE", `API key variable: ${keyProblem}`);
  if (!a.model) throw new AgentdError("E_USAGE", `a model name is needed for ${a.intelligence ?? `the ${a.dialect} API`} (--model)`);
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const s of a.servers) {
    if (mcpServers[s.name]) throw new AgentdError("E_USAGE", `MCP server '${s.name}' is given twice`);
    mcpServers[s.name] = serverEntry(s.target);
  }
  const raw = {
    $schema: schemaRef,
    model: {
      intelligence: a.intelligence || undefined,
      dialect: a.dialect,
      name: a.model || undefined,
      apiKeyEnv: a.apiKeyEnv || undefined,
    },
    mcpServers: a.servers.length ? mcpServers : undefined,
  };
  parseConfig(raw, {}, source, { expand: false });
  // Write what the person chose, not the parsed form (which normalises durations and the like).
  return raw as AgentdConfig;
}
