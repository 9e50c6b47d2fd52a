/**
 * Conversations in a versioned document store: the configured MCP store (`durability.store`, a directory
 * or Redis: one fleet sees one set of conversations) or the local state directory. One document a
 * conversation under `conversation/<owner hash>/<id>` (the checkpoint's run conversations live under
 * `conversations/`, a different prefix), written by compare-and-set on the document's version, so two
 * writers racing on one conversation cannot both win.
 *
 * Bounds (docs/conversations.md): at most `maxConversations` per owner — starting one more deletes the
 * owner's least recently updated; at most `maxBytes` per conversation (the growth policy keeps it under,
 * a larger write is refused) — so an owner holds at most `maxConversations × maxBytes`. Retention: a
 * conversation not continued for `retentionMs` is expired: treated as absent when read, and deleted when
 * its owner next reads, lists or starts a conversation.
 */
import { sha256 } from "../../_internal/hash.ts";
import * as v from "valibot";
import type { CompareAndSetResult, ListedKey, StoredDocument } from "../../store/types.ts";
import { AgentdError } from "../../wire/errors.ts";
import {
  type Conversation,
  type ConversationStore,
  type ConversationSummary,
  checkConversationId,
  forbiddenConversation,
  type VersionedConversation,
} from "./conversation.ts";
import { messageBytes } from "./trim-conversation.ts";

/** What the conversations need of a store: a {@link StoreClient} over any MCP store, or a backend. */
export interface DocumentStore {
  get(key: string): Promise<StoredDocument | undefined>;
  compareAndSet(key: string, expectedVersion: number, value: unknown): Promise<CompareAndSetResult>;
  delete(key: string, expectedVersion?: number): Promise<boolean>;
  list(prefix: string): Promise<ListedKey[]>;
}

/** Bounds of the conversations (docs/conversations.md). */
export interface ConversationBounds {
  /** Per owner (default 100): starting one more deletes the least recently updated. */
  maxConversations?: number;
  /** Per conversation, JSON bytes as stored (default 1 MiB). */
  maxBytes?: number;
  /** Expired this long after the last update (default 30 days). */
  retentionMs?: number;
}

/** The defaults of {@link ConversationBounds}. */
export const DEFAULT_BOUNDS = { maxConversations: 100, maxBytes: 1024 * 1024, retentionMs: 30 * 86_400_000 } as const;

const FORMAT = "agentd.conversation-thread";
const ROLES = new Set(["user", "assistant", "tool"]);
/**
 * The messages are checked by hand, not by a schema: a schema walks and copies every message of every
 * read, the largest part of reading a long conversation, where a role check of each is all that is needed
 * (the loop reads their parts as it meets them).
 */
const isMessages = (x: unknown): x is Conversation["messages"] =>
  Array.isArray(x) && x.every((m) => typeof m === "object" && m !== null && ROLES.has((m as { role?: unknown }).role as string));
const DocumentSchema = v.object({
  format: v.literal(FORMAT),
  version: v.literal(1),
  expiresAt: v.number(),
  conversation: v.looseObject({
    id: v.string(),
    owner: v.string(),
    title: v.string(),
    createdAt: v.string(),
    updatedAt: v.string(),
    messages: v.custom<Conversation["messages"]>(isMessages, "messages must be user, assistant or tool messages"),
    runs: v.array(v.string()),
  }),
});
type Document = v.InferOutput<typeof DocumentSchema>;

const PREFIX = "conversation/";
/** The owner's part of a key: a principal can hold any character, so its hash. */
const ownerKey = (owner: string): string => sha256(owner, "hex").slice(0, 32);
const keyOf = (owner: string, id: string): string => `${PREFIX}${ownerKey(owner)}/${checkConversationId(id)}`;

/**
 * The JSON bytes of `document`, its messages measured once each (trim-conversation.ts keeps their sizes):
 * the envelope without them, plus each message, plus the commas between them — exactly what
 * `JSON.stringify(document)` gives, without serialising the conversation a second time before the store does.
 */
function documentBytes(document: { conversation: Conversation }): number {
  const { messages } = document.conversation;
  const envelope = Buffer.byteLength(JSON.stringify({ ...document, conversation: { ...document.conversation, messages: [] } }));
  return envelope + messages.reduce((n, m) => n + messageBytes(m), 0) + Math.max(0, messages.length - 1);
}

/** See the module header. */
export class DocumentConversationStore implements ConversationStore {
  private readonly bounds: Required<ConversationBounds>;
  private readonly now: () => number;

  constructor(
    private readonly store: () => Promise<DocumentStore>,
    bounds: ConversationBounds = {},
    now: () => number = Date.now,
  ) {
    this.bounds = { ...DEFAULT_BOUNDS, ...Object.fromEntries(Object.entries(bounds).filter(([, x]) => x !== undefined)) };
    this.now = now;
  }

  /** The bounds in force. */
  get limits(): Readonly<Required<ConversationBounds>> {
    return this.bounds;
  }

  async get(id: string, owner: string): Promise<VersionedConversation | undefined> {
    const store = await this.store();
    const key = keyOf(owner, id);
    const stored = await store.get(key);
    if (!stored) return undefined;
    const doc = this.parse(stored.value);
    if (!doc || doc.conversation.owner !== owner) throw forbiddenConversation(id);
    if (doc.expiresAt <= this.now()) {
      await store.delete(key, stored.version);
      return undefined;
    }
    return { conversation: doc.conversation as unknown as Conversation, version: stored.version };
  }

  /** Whether another principal holds a conversation under `id` (to tell "not yours" from "unknown" when resuming one). */
  async heldByAnother(id: string, owner: string): Promise<boolean> {
    const key = keyOf(owner, id);
    return (await (await this.store()).list(PREFIX)).some((k) => k.key.endsWith(`/${id}`) && k.key !== key);
  }

  async save(conversation: Conversation, expectedVersion: number): Promise<{ ok: true; version: number } | { ok: false }> {
    const store = await this.store();
    const key = keyOf(conversation.owner, conversation.id);
    const document = { format: FORMAT, version: 1, expiresAt: this.now() + this.bounds.retentionMs, conversation };
    const bytes = documentBytes(document);
    if (bytes > this.bounds.maxBytes)
      throw new AgentdError(
        "E_STORE",
        `conversation ${conversation.id} is ${bytes} bytes, over its bound of ${this.bounds.maxBytes}: not saved (raise conversations.maxBytes)`,
      );
    if (expectedVersion === 0) await this.makeRoom(store, conversation.owner);
    const r = await store.compareAndSet(key, expectedVersion, document);
    return r.ok ? { ok: true, version: r.version } : { ok: false };
  }

  async list(owner: string): Promise<ConversationSummary[]> {
    const store = await this.store();
    const out: ConversationSummary[] = [];
    for (const listed of await store.list(`${PREFIX}${ownerKey(owner)}/`)) {
      const stored = await store.get(listed.key);
      const doc = stored && this.parse(stored.value);
      if (!stored || !doc || doc.conversation.owner !== owner) continue;
      if (doc.expiresAt <= this.now()) {
        await store.delete(listed.key, stored.version);
        continue;
      }
      const c = doc.conversation as unknown as Conversation;
      out.push({
        id: c.id,
        owner: c.owner,
        ...(c.scope ? { scope: c.scope } : {}),
        title: c.title,
        createdAt: c.createdAt,
        updatedAt: c.updatedAt,
        messages: c.messages.length,
        bytes: Buffer.byteLength(JSON.stringify(stored.value)),
        runs: c.runs.length,
        ...(c.runs.length ? { lastRunId: c.runs.at(-1) } : {}),
      });
    }
    return out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
  }

  async delete(id: string, owner: string): Promise<boolean> {
    if (!(await this.get(id, owner))) return false;
    return (await this.store()).delete(keyOf(owner, id));
  }

  /** Before a new conversation: expired ones go, and the least recently updated while the owner is at the bound. */
  private async makeRoom(store: DocumentStore, owner: string): Promise<void> {
    const held = await this.list(owner);
    for (const old of held.slice(this.bounds.maxConversations - 1)) await store.delete(keyOf(owner, old.id));
  }

  private parse(value: unknown): Document | undefined {
    const parsed = v.safeParse(DocumentSchema, value);
    return parsed.success ? parsed.output : undefined;
  }
}
