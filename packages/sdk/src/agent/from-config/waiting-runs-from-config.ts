/**
 * Where a configured agent saves the runs that wait for a person's decision: in `durability.store` when one
 * is configured (a directory or Redis behind an MCP store: every replica sees the same waiting runs, and
 * whichever claims one resumes it), else undefined — the agent then uses the local state directory
 * (`$XDG_STATE_HOME/agentd/runs`).
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { AgentDurability } from "../types/agent-options.ts";
import { storeConnection } from "./durable-store.ts";

/** The waiting-run store of `config` (see the module header). */
export function waitingRunsFromConfig(config: AgentdConfig, logger: Logger): AgentDurability["waitingRuns"] {
  const entry = config.durability?.store;
  if (!entry) return undefined;
  const connection = storeConnection("waiting-runs-store", entry, logger);
  return {
    get: async (key) => (await connection.store()).get(key),
    compareAndSet: async (key, expected, value) => (await connection.store()).compareAndSet(key, expected, value),
    delete: async (key, expected) => (await connection.store()).delete(key, expected),
    list: async (prefix) => (await connection.store()).list(prefix),
    close: () => connection.close(),
  };
}
