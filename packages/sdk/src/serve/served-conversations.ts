/**
 * The served view of the agent's conversations (docs/conversations.md): `agent://conversations` lists the
 * caller's own, `agent://conversations/{id}` reads one of them (the owner's only: another principal's id is
 * "not found", as for runs), and both tell their subscribers when a run on this replica that continued a
 * conversation ends. The conversations themselves live a layer up (agent/conversations/); this module only
 * reads them through {@link ServedConversations}, the owner-scoped lookups A2A's `contextId` uses too.
 *
 * A conversation keeps the run ids its runs were given, which for a principal other than `local` carry that
 * principal's suffix (`scopedRunId`); shown to its owner they are the ids `agent://runs/{runId}` takes.
 */
import type { McpServer } from "../mcp/server/server.ts";
import type { ServerSession } from "../mcp/server/session.ts";
import { McpError } from "../wire/errors.ts";
import { ErrorCode } from "../wire/jsonrpc.ts";
import { type Principal, scopedRunId } from "./principal.ts";
import type { RunRegistry } from "./run-registry.ts";

/** A conversation in a listing: no messages. */
export interface ServedConversationSummary {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messages: number;
  /** Size as stored (JSON bytes). */
  bytes: number;
  runs: number;
  lastRunId?: string;
}

/** One conversation as its owner reads it. */
export interface ServedConversation {
  id: string;
  owner: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  /** The runs that continued it, oldest first. */
  runs: string[];
  messages: readonly unknown[];
  dropped: number;
  tokens?: { count: number; messages: number };
}

/** What the served surfaces read of the agent's conversations; every lookup is scoped to an owner. */
export interface ServedConversations {
  /** The owner's conversations, newest first. */
  list(owner: string): Promise<ServedConversationSummary[]>;
  /** One of the owner's, or undefined. */
  get(id: string, owner: string): Promise<ServedConversation | undefined>;
  /** Whether a principal other than `owner` holds a conversation `id`. */
  heldByAnother(id: string, owner: string): Promise<boolean>;
}

/** The URI of the caller's conversation list; `agent://conversations/{id}` reads one. */
export const CONVERSATIONS_URI = "agent://conversations";

/** Ids an owner may choose for a conversation: what a store key part and a shell argument take unquoted. */
const CONVERSATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Whether `id` may name a conversation (1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit). */
export const isConversationId = (id: string): boolean => CONVERSATION_ID.test(id) && !id.includes("..");

/** A run id as a conversation keeps it, as its owner names it (the principal's suffix taken off). */
export function ownerRunId(owner: string, runId: string): string {
  const suffix = scopedRunId({ id: owner, role: "user" }, "");
  return suffix && runId.endsWith(suffix) ? runId.slice(0, -suffix.length) : runId;
}

/** Register `agent://conversations` and `agent://conversations/{id}` on `server`, and notify their subscribers. */
export function registerConversationResources(
  server: McpServer,
  conversations: ServedConversations,
  registry: RunRegistry,
  principalOf: (authInfo: ServerSession["protocol"]["transport"]["authInfo"]) => Principal,
): void {
  server.resource(
    {
      uri: CONVERSATIONS_URI,
      name: "conversations",
      title: "Your conversations",
      mimeType: "application/json",
      description: "Your conversations, newest first: { conversations: [{ id, title, createdAt, updatedAt, runs, messages, bytes }] }",
    },
    async (uri, ctx) => {
      const owner = principalOf(ctx.authInfo).id;
      const listed = (await conversations.list(owner)).map((c) => ({
        ...c,
        ...(c.lastRunId ? { lastRunId: ownerRunId(owner, c.lastRunId) } : {}),
      }));
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ conversations: listed }) }] };
    },
  );
  server.resourceTemplate(
    {
      uriTemplate: `${CONVERSATIONS_URI}/{id}`,
      name: "conversation",
      title: "A conversation",
      mimeType: "application/json",
      description: "One of your conversations: its runs (ids for agent://runs/{runId}) and messages",
    },
    async (uri, vars, ctx) => {
      const id = String(vars.id);
      const owner = principalOf(ctx.authInfo).id;
      // Another principal's id is not found, never forbidden: whether it exists is not the caller's to learn.
      const found = isConversationId(id) ? await conversations.get(id, owner) : undefined;
      if (!found) throw new McpError(ErrorCode.ResourceNotFound, `no conversation ${id} of yours`, { uri });
      const { owner: _owner, ...rest } = found;
      const view = { ...rest, runs: found.runs.map((r) => ownerRunId(owner, r)) };
      return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(view) }] };
    },
  );
  // A run that continued a conversation has saved its turns by the time it ends: its owner's subscribers hear
  // of it (only the owner's: an operator reads no one else's conversations either).
  registry.onRunListChange(({ owner, record }) => {
    if (!record?.conversationId || record.status === "running") return;
    const to = (s: ServerSession) => principalOf(s.protocol.transport.authInfo).id === owner;
    void server.notifyResourceUpdated(CONVERSATIONS_URI, to);
    void server.notifyResourceUpdated(`${CONVERSATIONS_URI}/${record.conversationId}`, to);
  });
}
