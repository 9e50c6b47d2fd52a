/** Flags shared by the commands that run an agent, and small input helpers. */
import { AgentdError, type ConfigOverrides, durationProblem, parseDuration } from "@agentd/sdk";
import { overridesFromFlags } from "@agentd/sdk/config";
import { readFile } from "node:fs/promises";
import { repeatedFlag } from "./mcp-args.ts";

/** `--mcp-config`'s help: the tools whose files it reads. */
export const MCP_CONFIG_HELP =
  "Add the MCP servers of another tool's config file (Claude Desktop/Code, Cursor, Cline, Windsurf, VS Code, Gemini CLI, Codex config.toml, goose config.yaml, Zed); repeatable";
/** `--mcp-config-format`'s help. */
export const MCP_CONFIG_FORMAT_HELP =
  "The format of the --mcp-config files when not recognised: claude, cursor, cline, windsurf, vscode, gemini, codex, goose or zed (once, or once a file)";

/** Config flags: flags > environment (AGENT_*) > config file. */
export const configArgs = {
  config: { type: "string", alias: "c", description: "Config file (default: AGENT_CONFIG, else ./agentd.json if present)" },
  "mcp-config": { type: "string", description: MCP_CONFIG_HELP },
  "mcp-config-format": { type: "string", description: MCP_CONFIG_FORMAT_HELP },
  intelligence: { type: "string", description: "Model endpoint URL (AGENT_INTELLIGENCE), e.g. http://127.0.0.1:11434/v1" },
  dialect: {
    type: "string",
    description: "openai (chat completions, the default), responses (OpenAI's Responses API), anthropic or gemini (AGENT_DIALECT)",
  },
  model: { type: "string", alias: "m", description: "Model name (AGENT_MODEL)" },
  instructions: { type: "string", description: "System instructions (overrides the config file's)" },
  "max-turns": { type: "string", description: "Budget: model turns (default 20)" },
  "max-tokens": { type: "string", description: "Budget: input+output tokens across the run" },
  deadline: { type: "string", description: "Budget: wall-clock deadline, e.g. 90s, 10m" },
  "max-cost": { type: "string", description: "Budget: USD, needs model.prices in the config" },
} as const;

/**
 * A duration flag's value in milliseconds, or one usage line naming the flag and the accepted forms: a unit
 * is required (a bare `--interval 5` was once 5 ms).
 */
export function durationFlag(flag: string, value: string, example: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new AgentdError("E_USAGE", `${flag} '${value}': ${durationProblem(value)} (e.g. ${flag} ${example})`);
  return ms;
}

/**
 * The config overrides of the parsed flags: the SDK's one table reads them (`overridesFromFlags`) and
 * `resolveConfig` checks them beside the environment's, in the same words. `rawArgs` holds repeated flags.
 */
export function overridesFrom(args: Record<string, unknown>, rawArgs: readonly string[] = []): ConfigOverrides {
  return { ...overridesFromFlags(args), ...mcpConfigOverrides(rawArgs) };
}

/** The `--mcp-config` files and `--mcp-config-format` names of a command line (each flag repeatable). */
export function mcpConfigOverrides(rawArgs: readonly string[]): Pick<ConfigOverrides, "mcpConfig" | "mcpConfigFormat"> {
  const mcpConfig = repeatedFlag(rawArgs, "mcp-config");
  const mcpConfigFormat = repeatedFlag(rawArgs, "mcp-config-format");
  return { ...(mcpConfig.length > 0 ? { mcpConfig } : {}), ...(mcpConfigFormat.length > 0 ? { mcpConfigFormat } : {}) };
}

/** The instruction: the positional argument, else stdin when it is piped. */
export async function readInstruction(positional: string | undefined): Promise<string> {
  if (positional?.trim()) return positional;
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8").trim();
    if (text) return text;
  }
  throw new AgentdError("E_USAGE", 'no instruction: pass it as an argument (agentd run "…") or on stdin');
}

/** Read a JSON file named by a flag, with a clear error. */
export async function readJsonFile(path: string, flag: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    throw new AgentdError("E_USAGE", `${flag}: cannot read ${path}`);
  }
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new AgentdError("E_USAGE", `${flag}: ${path} is not a JSON object`);
}
