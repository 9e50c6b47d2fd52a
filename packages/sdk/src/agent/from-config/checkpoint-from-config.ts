/**
 * `capabilities.checkpoint` + `durability.checkpoint` → an {@link AgentCheckpoint} over an MCP client to
 * the configured store (the checkpoint's own entry, else durability.store, else the claims store), connected when the triggers
 * start. Off (the default) → undefined: stateless rebuild + reconcile, exactly as before.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { StoreClient } from "../../store/store-client.ts";
import { AgentdError } from "../../wire/errors.ts";
import { upstreamError } from "../connections/connect-server.ts";
import { durableStoreEntry, storeConnection } from "./durable-store.ts";
import type { AgentCheckpoint } from "../checkpoint/agent-checkpoint.ts";

/** The checkpoint identity a config implies: `durability.checkpoint.identity`, claims' holder, `$RUN_ID`, or "agentd". */
export function checkpointIdentity(config: AgentdConfig, env: Record<string, string | undefined> = process.env): string {
  const id = config.durability?.checkpoint?.identity ?? config.durability?.claims?.holder ?? env.RUN_ID ?? "agentd";
  return id.replace(/[^A-Za-z0-9._:@-]/g, "_").slice(0, 120) || "agentd";
}

/** The checkpoint the config asks for, or undefined when the switch is off. Throws `E_CONFIG_INVALID` (one line). */
export function checkpointFromConfig(config: AgentdConfig, logger: Logger): AgentCheckpoint | undefined {
  const on = config.capabilities?.checkpoint === true;
  const c = config.durability?.checkpoint;
  if (!on) {
    if (c)
      throw new AgentdError(
        "E_CONFIG_INVALID",
        "durability.checkpoint is set but capabilities.checkpoint is not true: set it to true, or remove durability.checkpoint",
      );
    return undefined;
  }
  const entry = durableStoreEntry(config, "checkpoint");
  if (!entry)
    throw new AgentdError(
      "E_CONFIG_INVALID",
      'capabilities.checkpoint needs a store: set durability.store (e.g. {"command": "agentd", "args": ["store", "--dir", "/var/lib/agentd"]}) or durability.checkpoint.store',
    );
  const connection = storeConnection("checkpoint-store", entry, logger);
  let store: Promise<StoreClient> | undefined;
  const connect = () =>
    (store ??= connection.store().catch((e: unknown) => {
      store = undefined;
      throw upstreamError("checkpoint-store", e);
    }));
  const rc = c?.resumeConversations;
  // The checkpoint's modules load only when it is switched on (createAgentFromConfig is synchronous).
  const { AgentCheckpoint: Checkpoint } =
    require("../checkpoint/agent-checkpoint.ts") as typeof import("../checkpoint/agent-checkpoint.ts");
  const { RunConversations } = require("../checkpoint/run-conversations.ts") as typeof import("../checkpoint/run-conversations.ts");
  return new Checkpoint({
    identity: checkpointIdentity(config),
    conversations: rc ? new RunConversations({ store: connect, maxBytes: rc.maxBytes, ttlMs: rc.ttl, logger }) : undefined,
    store: connect,
    closeStore: () => connection.close(),
    debounceMs: c?.debounce,
    logger,
  });
}
