/**
 * The agent's approval desk from `agentd.json`: its questions kept in `durability.store` when one is
 * configured (every replica sharing it lists the same questions, and hears each change through the store),
 * else in the local state directory (`$XDG_STATE_HOME/agentd/approvals`, else
 * `~/.local/state/agentd/approvals`). Built only when the config has `approvals`; the store is reached on
 * first use.
 */
import { join } from "node:path";
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { StoredApprovalDesk } from "../../serve/approvals/stored-desk.ts";
import { LocalDocuments, localConversationsDir } from "../conversations/local-documents.ts";
import { storeConnection } from "./durable-store.ts";

/** Where questions are kept without a configured store. */
export function localApprovalsDir(env: Record<string, string | undefined> = process.env): string {
  return join(localConversationsDir(env), "..", "approvals");
}

/** The desk the config describes, or undefined without `approvals`. */
export function approvalDeskFromConfig(
  config: AgentdConfig,
  logger: Logger,
  env: Record<string, string | undefined> = process.env,
): StoredApprovalDesk | undefined {
  const a = config.approvals;
  if (!a) return undefined;
  const settings = { timeoutMs: a.timeout, onTimeout: a.onTimeout };
  // The desk's module loads only with an `approvals` block (createAgentFromConfig is synchronous).
  const { StoredApprovalDesk: Desk } =
    require("../../serve/approvals/stored-desk.ts") as typeof import("../../serve/approvals/stored-desk.ts");
  const entry = config.durability?.store;
  if (entry) {
    const connection = storeConnection("approvals-store", entry, logger);
    return new Desk(() => connection.store(), { ...settings, onClose: () => connection.close() });
  }
  const local = new LocalDocuments(localApprovalsDir(env));
  return new Desk(async () => local, settings);
}
