/**
 * Where a configured agent keeps its conversations, bounded by `durability.conversations`: in its `store`,
 * else `durability.store`, when one is configured (a
 * directory or Redis behind an MCP store: every replica sees the same conversations), else in the local
 * state directory (`$XDG_STATE_HOME/agentd/conversations`, else `~/.local/state/agentd/conversations`).
 * `agentd conversations` and `agentd run --continue` read them through this one function, so the CLI and
 * the agent agree on where they are.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { ConversationOptions } from "../conversations/conversation-run.ts";
import { DocumentConversationStore } from "../conversations/document-conversations.ts";
import { LocalDocuments, localConversationsDir } from "../conversations/local-documents.ts";
import { durableStoreEntry, storeConnection } from "./durable-store.ts";

/** The conversations of `config`, owned by `principal`, started under `scope` (see the module header). */
export function conversationsFromConfig(
  config: AgentdConfig,
  logger: Logger,
  settings: { principal?: string; scope?: string; env?: Record<string, string | undefined> } = {},
): ConversationOptions & { where: string; close(): Promise<void> } {
  const c = config.durability?.conversations;
  const bounds = { maxConversations: c?.maxConversations, maxBytes: c?.maxBytes, retentionMs: c?.retention };
  const limits = { maxTokens: c?.maxTokens, maxBytes: c?.maxBytes, growth: c?.growth };
  const entry = durableStoreEntry(config, "conversations");
  if (entry) {
    const connection = storeConnection("conversations-store", entry, logger);
    return {
      ...limits,
      store: new DocumentConversationStore(() => connection.store(), bounds),
      principal: settings.principal,
      scope: settings.scope,
      where: "the configured store",
      close: () => connection.close(),
    };
  }
  const dir = localConversationsDir(settings.env);
  const local = new LocalDocuments(dir);
  return {
    ...limits,
    store: new DocumentConversationStore(async () => local, bounds),
    principal: settings.principal,
    scope: settings.scope,
    where: dir,
    close: async () => {},
  };
}
