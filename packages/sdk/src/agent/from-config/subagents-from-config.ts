/**
 * The supervisor of an agent: for the root, from its configuration (`subagents` turns it on); for a child,
 * from the parent's `start`. Children are this same program (`selfCommand()`: bun + main.ts, or the
 * compiled binary) with the hidden `__subagent` entry, unless the caller names another command (a program
 * embedding the SDK runs `runSubagentChild` from an entry of its own); the API key goes only into their
 * environment.
 */
import type { AgentdConfig, ModelConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { RunLimits } from "../../loop/budget.ts";
import type { ChildCommand } from "../../supervisor/child-attempt.ts";
import { SUBAGENT_API_KEY_ENV, type StartParams } from "../../supervisor/control-protocol.ts";
import { subagentCommand, Supervisor } from "../../supervisor/supervisor.ts";

/** The key a child uses: `AGENT_API_KEY` from its environment, else the variable `model.apiKeyEnv` names. */
export function childApiKey(model: ModelConfig, env: Record<string, string | undefined> = process.env): string | undefined {
  return env[SUBAGENT_API_KEY_ENV] || (model.apiKeyEnv ? env[model.apiKeyEnv] || undefined : undefined);
}

/** How a child is started: `base` (default: this program's `__subagent` entry), the API key (if any) in its environment only. */
export function childCommand(apiKey: string | undefined, base: ChildCommand = subagentCommand()): ChildCommand {
  // Children write telemetry to a pipe; keep the format a person watching the root would see.
  const format = process.env.AGENT_LOG_FORMAT ?? (process.stderr.isTTY ? "pretty" : "json");
  return {
    ...base,
    env: { ...base.env, AGENT_LOG_FORMAT: format, ...(apiKey ? { [SUBAGENT_API_KEY_ENV]: apiKey } : {}) },
    // Whole lines only, so JSON telemetry from the tree stays one object a line on the root's stderr.
    stderr: (line) => void process.stderr.write(`${line}\n`),
  };
}

/**
 * The root's supervisor, when the configuration has a `subagents` block; undefined otherwise. `limits` are
 * the root's (the ceiling of every child's); `apiKey` defaults to the one in this process's environment.
 */
export function supervisorFromConfig(
  config: AgentdConfig,
  logger: Logger,
  options: { limits?: RunLimits; apiKey?: string; command?: ChildCommand } = {},
): Supervisor | undefined {
  const s = config.subagents;
  if (!s) return undefined;
  const model = config.model ?? {};
  // A child reads only its servers' entries: every-server timeouts (limits.mcpTimeout …) go into each of them.
  const { mcpTimeout, mcpMaxTotalTimeout } = config.limits ?? {};
  const servers = Object.fromEntries(
    Object.entries(config.mcpServers ?? {})
      .filter(([, c]) => c.disabled !== true)
      .map(([name, c]) => [
        name,
        {
          ...c,
          timeout: c.timeout ?? (mcpTimeout || undefined),
          maxTotalTimeout: c.maxTotalTimeout ?? (mcpMaxTotalTimeout || undefined),
        },
      ]),
  );
  return new Supervisor({
    model,
    mcpServers: servers,
    command: childCommand(options.apiKey ?? childApiKey(model), options.command),
    scopes: config.scope?.allow ? [{ allow: config.scope.allow }] : [],
    limits: options.limits ?? {},
    depth: 0,
    maxDepth: s.maxDepth,
    maxChildren: s.maxChildren,
    maxRestarts: s.maxRestarts,
    logger,
  });
}

/** A child's own supervisor: one level deeper, within the limits and scope its parent gave it. */
export function childSupervisor(start: StartParams, logger: Logger): Supervisor {
  return new Supervisor({
    model: start.model,
    mcpServers: start.mcpServers,
    command: childCommand(childApiKey(start.model)),
    instructions: start.instructions,
    scopes: start.scopes,
    limits: start.limits,
    depth: start.depth,
    maxDepth: start.subagents.maxDepth,
    maxChildren: start.subagents.maxChildren,
    maxRestarts: start.subagents.maxRestarts,
    graceMs: start.subagents.graceMs,
    logger,
  });
}
