/**
 * The agent's conversations: `agent.conversations.{list,get,delete}` for an owner, and the one entry a run
 * uses (`conversationForRun`). Without a configured store they live in the local state directory
 * (local-documents.ts), opened only when a conversation is first used, so an agent that never names one
 * touches nothing. Runs naming one conversation by id in this process are queued — each starts after the
 * last one on it ended — so overlapping trigger firings see each other's turns; across processes the
 * store's compare-and-set serialises their saves (conversation-run.ts).
 */
import type { Logger } from "../../log.ts";
import type { RunEvent } from "../../loop/events.ts";
import type { LanguageModel, ModelMessage } from "../../model/language-model.ts";
import { LOCAL_PRINCIPAL } from "../../serve/principal.ts";
import type { ServedConversations } from "../../serve/served-conversations.ts";
import type { Conversation, ConversationRef, ConversationSummary } from "./conversation.ts";
import {
  beginConversation,
  type ConversationMark,
  type ConversationOptions,
  type ConversationRun,
  resumeConversation,
} from "./conversation-run.ts";
import { DocumentConversationStore } from "./document-conversations.ts";
import { LocalDocuments, localConversationsDir } from "./local-documents.ts";

/** Whose conversations a call means (default: the agent's principal, `local` unless configured). */
export interface OwnerOptions {
  principal?: string;
}

/** `agent.conversations`: the owner's conversations. */
export interface AgentConversations {
  /** The owner's conversations, newest first. */
  list(options?: OwnerOptions): Promise<ConversationSummary[]>;
  /** One of the owner's conversations with its messages; undefined when unknown; refused when another's. */
  get(id: string, options?: OwnerOptions): Promise<Conversation | undefined>;
  /** Delete one of the owner's conversations; false when unknown; refused when another's. */
  delete(id: string, options?: OwnerOptions): Promise<boolean>;
}

/** A run's conversation as the agent drives it: the loop's hooks, the events it reads, the end. */
export interface RunConversation extends ConversationRun {
  /** Feed it the run's events (it keeps the model's reported usage). */
  observe(event: RunEvent): void;
  /** Save what is left and let the next run on this conversation start. */
  close(): Promise<void>;
}

/** The conversations of one agent. */
export class ConversationsOf {
  private settings: ConversationOptions | undefined;
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly configured: ConversationOptions | undefined) {}

  /** The options in force (the local state directory unless a store was configured). */
  get options(): ConversationOptions {
    this.settings ??= this.configured ?? {
      store: new DocumentConversationStore(async () => new LocalDocuments(localConversationsDir())),
    };
    return this.settings;
  }

  /** Release the store (the agent closes). */
  async close(): Promise<void> {
    await this.configured?.close?.();
  }

  /** The `agent.conversations` API. */
  api(): AgentConversations {
    const owner = (o?: OwnerOptions) => o?.principal ?? this.options.principal ?? LOCAL_PRINCIPAL;
    return {
      list: (o) => this.options.store.list(owner(o)),
      get: async (id, o) => (await this.options.store.get(id, owner(o)))?.conversation,
      delete: (id, o) => this.options.store.delete(id, owner(o)),
    };
  }

  /** What the served surfaces read (`agent://conversations`, A2A's `contextId`): every lookup for a given owner. */
  served(): ServedConversations {
    return {
      list: (owner) => this.options.store.list(owner),
      get: async (id, owner) => (await this.options.store.get(id, owner))?.conversation,
      heldByAnother: async (id, owner) => (await this.options.store.heldByAnother?.(id, owner)) ?? false,
    };
  }

  /** Start `runId`'s conversation (waiting for a run on the same one in this process to end first). */
  forRun(
    ref: ConversationRef,
    run: { runId: string; input: string; principal?: string; logger: Logger; model?: LanguageModel; signal?: AbortSignal },
  ): Promise<RunConversation> {
    const owner = run.principal ?? this.options.principal ?? LOCAL_PRINCIPAL;
    const named = typeof ref === "string" ? ref : "id" in ref ? ref.id : undefined;
    return this.queued(named === undefined ? undefined : [owner, named], () => beginConversation(this.options, ref, { ...run, owner }));
  }

  /**
   * The conversation of a resumed run, from the mark its first part left (`history`: the history that part
   * was sent): queued like any run on it, so a run started meanwhile here sees the resumed turns.
   */
  forResume(
    mark: ConversationMark,
    history: ModelMessage[],
    run: { runId: string; input: string; logger: Logger },
  ): Promise<RunConversation> {
    return this.queued([mark.owner, mark.id], () => resumeConversation(this.options, mark, history, run));
  }

  /** Begin a run's conversation after the runs before it on the same one in this process (`key`: its owner and id). */
  private async queued(key: [string, string] | undefined, begin: () => Promise<ConversationRun>): Promise<RunConversation> {
    const queue = key === undefined ? undefined : JSON.stringify(key);
    let release = () => {};
    if (queue !== undefined) {
      const before = this.queues.get(queue) ?? Promise.resolve();
      const mine = new Promise<void>((resolve) => (release = resolve));
      const tail = before.then(() => mine);
      this.queues.set(queue, tail);
      const done = release;
      release = () => {
        done();
        if (this.queues.get(queue) === tail) this.queues.delete(queue);
      };
      await before;
    }
    let thread: ConversationRun;
    try {
      thread = await begin();
    } catch (e) {
      release();
      throw e;
    }
    let sent = 0;
    return {
      ...thread,
      id: thread.id,
      history: thread.history,
      observe(event) {
        if (event.type === "model-start") sent = event.messages;
        else if (event.type === "model-end") thread.onUsage(event.usage, sent);
      },
      async close() {
        try {
          await thread.end();
        } finally {
          release();
        }
      },
    };
  }
}
