/**
 * A conversation that continues: the messages of earlier runs (user, assistant and tool turns, as the loop
 * keeps them), owned by one principal, sent back to the model before the next run's input. This file holds
 * its shape and the store interface; `document-conversations.ts` keeps them in any versioned document
 * store (the configured MCP store on a directory or Redis, or the local state directory), and
 * `conversation-run.ts` hooks one into a run.
 */
import type { ModelMessage } from "../../model/language-model.ts";
import { isConversationId } from "../../serve/served-conversations.ts";
import { AgentdError } from "../../wire/errors.ts";

/** One conversation as stored. */
export interface Conversation {
  /** Its id: generated (`c-…`) or a name the owner chose (`nightly-triage`); unique per owner. */
  id: string;
  /** The principal that owns it: only it can read, continue, list or delete it. */
  owner: string;
  /** Where it was started (the CLI: the config file), so `--continue` finds this config's newest. */
  scope?: string;
  /** The first request, shortened: what `agentd conversations list` shows. */
  title: string;
  /** Everything after the system prompt, oldest first. */
  messages: ModelMessage[];
  createdAt: string;
  updatedAt: string;
  /** The runs that continued it, oldest first (the last 100). */
  runs: string[];
  /**
   * What the model counted at the conversation's last request: `count` tokens (input plus output, as the
   * gateway reported them) for the first `messages` messages. The growth policy scales from it.
   */
  tokens?: { count: number; messages: number };
  /** How many messages the growth policy has dropped from the front so far (summarised ones included). */
  dropped: number;
  /**
   * How many summaries the growth policy has put at the front so far (`growth: "summarise"`): each is one
   * user/assistant pair standing for the messages it replaced.
   */
  summaries?: number;
}

/** A conversation in a listing (no messages). */
export interface ConversationSummary {
  id: string;
  owner: string;
  scope?: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  messages: number;
  /** Size as stored (JSON bytes). */
  bytes: number;
  runs: number;
  lastRunId?: string;
}

/** A conversation and the store version it was read at (compare-and-set names it). */
export interface VersionedConversation {
  conversation: Conversation;
  version: number;
}

/**
 * Where conversations live; like the checkpoint's store, swappable. Every method is scoped to an owner: ids
 * are per owner, so another principal's conversation is never found, read or deleted through them.
 */
export interface ConversationStore {
  /** The owner's conversation, or undefined when there is none (or it expired). */
  get(id: string, owner: string): Promise<VersionedConversation | undefined>;
  /**
   * Write it only if the stored version is `expectedVersion` (0: only if new). `ok: false` when someone else
   * wrote it meanwhile: read it again and retry.
   */
  save(conversation: Conversation, expectedVersion: number): Promise<{ ok: true; version: number } | { ok: false }>;
  /** The owner's conversations, newest first. */
  list(owner: string): Promise<ConversationSummary[]>;
  /** Optional: whether another principal holds `id`, so resuming it says "not yours" rather than "unknown". */
  heldByAnother?(id: string, owner: string): Promise<boolean>;
  /** Delete the owner's conversation; false when there was none. */
  delete(id: string, owner: string): Promise<boolean>;
}

/** What names a conversation for a run. */
export type ConversationRef =
  /** An id or a name: continued when the owner has one, created (with this id) when not. */
  | string
  /** A conversation read before (`agent.conversations.get`): continued; refused when it is gone. */
  | Conversation
  /**
   * `{ id }`: continue that one, refused when unknown (`--resume`); `{ id, create: true }`: create or
   * continue; `{ new: true }`: start a fresh one; `{ newest: true }`: the newest of `scope`, else a fresh one.
   */
  | { id: string; create?: boolean }
  | { new: true }
  | { newest: true };

/** Throw one line (`E_USAGE`) unless `id` is a valid conversation id. */
export function checkConversationId(id: string): string {
  if (!isConversationId(id))
    throw new AgentdError(
      "E_USAGE",
      `invalid conversation id ${JSON.stringify(id)}: use 1-64 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit`,
      { data: { reason: "conversation-invalid" } },
    );
  return id;
}

/** A fresh conversation id. */
export const newConversationId = (): string => `c-${crypto.randomUUID()}`;

/** The one line for an id the owner has no conversation under. */
export const unknownConversation = (id: string): AgentdError =>
  new AgentdError("E_USAGE", `no conversation ${id}: \`agentd conversations list\` shows yours`, {
    data: { reason: "conversation-unknown" },
  });

/** The one line for another principal's conversation. */
export const forbiddenConversation = (id: string): AgentdError =>
  new AgentdError("E_USAGE", `conversation ${id} belongs to another principal: you can continue only your own`, {
    data: { reason: "conversation-forbidden" },
  });

/** The first request, shortened to a title. */
export function titleOf(input: string): string {
  const line = input.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
