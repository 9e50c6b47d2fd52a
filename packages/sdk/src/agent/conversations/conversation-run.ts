/**
 * One run continuing a conversation — the whole hook between a run and its conversation, kept in one
 * place: before the loop, the conversation is found (or created) for its owner and cut to its bound
 * (trim-conversation.ts); the loop gets its messages as `history` and tells every change (`onMessages`:
 * after each turn whose tool results are in, and with the final answer), each saved in order; the model's
 * reported usage (`onUsage`) is remembered for the growth policy; `end()` waits for the last save. A run
 * that stops to wait for a decision leaves a mark (`mark()`, saved with it) from which its resumed part
 * writes on (`resumeConversation`), so the conversation holds the whole exchange once.
 *
 * Concurrent writers: every save is a compare-and-set on the version read. Two runs continuing one
 * conversation at once (two replicas, two terminals, overlapping trigger firings) are serialised at the
 * store: the loser reads the winner's conversation and puts its own new turns after the winner's, so
 * neither run's exchange is lost (conversation-writer.ts); within one process, runs on one conversation are queued before they
 * start (see `ConversationQueue`), so each one sees what the last did.
 */
import type { Logger } from "../../log.ts";
import type { LanguageModel, ModelMessage, Usage } from "../../model/language-model.ts";
import type { AgentdError } from "../../wire/errors.ts";
import {
  type Conversation,
  type ConversationRef,
  type ConversationStore,
  checkConversationId,
  forbiddenConversation,
  newConversationId,
  titleOf,
  unknownConversation,
  type VersionedConversation,
} from "./conversation.ts";
import { type ConversationSummaryReport, type GrowthPolicy, summariseTurns, summaryTokens } from "./summarise-conversation.ts";
import { type Trimmed, trimConversation } from "./trim-conversation.ts";
import { type ConversationMark, ConversationWriter, stateFromMark, type WriterState } from "./conversation-writer.ts";

export type { ConversationMark } from "./conversation-writer.ts";

/** How a run's conversations are kept and bounded. */
export interface ConversationOptions {
  store: ConversationStore;
  /** Tokens a conversation may take in a request (default 64,000): the growth policy cuts it to this. */
  maxTokens?: number;
  /** JSON bytes a conversation may take as stored (the store's bound; default 1 MiB). */
  maxBytes?: number;
  /**
   * What happens to the oldest turns when a conversation outgrows `maxTokens`: `drop` (the default) cuts
   * them; `summarise` has the run's model summarise them first (one request, counted in the run's usage)
   * and keeps the summary in their place (summarise-conversation.ts).
   */
  growth?: GrowthPolicy;
  /** The owner when a run names none (default: `local`). */
  principal?: string;
  /** Where conversations are started (the CLI: the config file), for `{ newest: true }`. */
  scope?: string;
  now?: () => number;
  /** Release the store's connection (called when the agent closes). */
  close?(): Promise<void>;
}

/** The default token bound of a conversation. */
export const DEFAULT_MAX_TOKENS = 64_000;

/** A run's handle on its conversation. */
export interface ConversationRun {
  readonly id: string;
  /** The earlier messages to send before the input (already cut to the bound). */
  readonly history: ModelMessage[];
  /** The summary this run had the model write of the turns it cut (`growth: "summarise"`), if any. */
  readonly summary?: ConversationSummaryReport;
  /** The loop's conversation changed (history included): save it. */
  onMessages(messages: readonly ModelMessage[]): void;
  /** A model response's usage for a request of `requestMessages` messages (system prompt included). */
  onUsage(usage: Usage, requestMessages: number): void;
  /** Where the conversation stands for this run once its saves are done: saved with a run that stops to wait. */
  mark(): Promise<ConversationMark>;
  /** Wait for the saves; rejects when the last one failed. */
  end(): Promise<void>;
}

/** Find or create the conversation `ref` names for `owner` and prepare the run (see the module header). */
export async function beginConversation(
  options: ConversationOptions,
  ref: ConversationRef,
  run: { runId: string; input: string; owner: string; logger: Logger; model?: LanguageModel; signal?: AbortSignal },
): Promise<ConversationRun> {
  const { store } = options;
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const found = await resolve(store, ref, run.owner, options.scope);
  const fresh = (id: string): Conversation => ({
    id,
    owner: run.owner,
    ...(options.scope ? { scope: options.scope } : {}),
    title: titleOf(run.input),
    messages: [],
    createdAt: now(),
    updatedAt: now(),
    runs: [],
    dropped: 0,
  });
  const current: VersionedConversation = found.existing ?? { conversation: fresh(found.id), version: 0 };
  const bounds = { maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS, maxBytes: options.maxBytes };
  const cut = await cutToBound(current.conversation, { ...bounds, growth: options.growth }, { ...run, conversationId: found.id });
  const history = cut.messages;
  // What this run's new messages go after: what it was sent (until a lost race puts them after the winner's).
  const state: WriterState = {
    current,
    prefix: history,
    droppedBefore: current.conversation.dropped + cut.dropped,
    summariesBefore: (current.conversation.summaries ?? 0) + (cut.summary ? 1 : 0),
    savedAdded: 0,
    tokens: current.conversation.tokens && cut.dropped === 0 ? current.conversation.tokens : undefined,
  };
  const writer = new ConversationWriter(
    store,
    { id: found.id, owner: run.owner, runId: run.runId, logger: run.logger, history, fresh: () => fresh(found.id), now },
    bounds,
    state,
  );
  return savingRun(writer, cut.summary);
}

/**
 * A resumed run's conversation (a run that stopped to wait for a decision, resumed here or in another
 * process): its writer goes on from the mark its first part left (conversation-writer.ts); `history` is the
 * history its first part was sent, the front of the saved messages the resumed run goes on from. Nothing is
 * cut or summarised again: the model reads what the first part read, and each save keeps the byte bound.
 */
export async function resumeConversation(
  options: ConversationOptions,
  mark: ConversationMark,
  history: ModelMessage[],
  run: { runId: string; input: string; logger: Logger },
): Promise<ConversationRun> {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const fresh = (): Conversation => ({
    id: mark.id,
    owner: mark.owner,
    ...(options.scope ? { scope: options.scope } : {}),
    title: titleOf(run.input),
    messages: [],
    createdAt: now(),
    updatedAt: now(),
    runs: [],
    dropped: 0,
  });
  const stored = await options.store.get(mark.id, mark.owner);
  const state = stateFromMark(mark, history, stored, fresh);
  const writerRun = { id: mark.id, owner: mark.owner, runId: run.runId, logger: run.logger, history, fresh, now };
  return savingRun(new ConversationWriter(options.store, writerRun, { maxBytes: options.maxBytes }, state), undefined);
}

/** The run's handle over its writer: saves in order, the newest only when several queued (see `onMessages`). */
function savingRun(writer: ConversationWriter, summary: ConversationSummaryReport | undefined): ConversationRun {
  const { id, history, logger } = writer.run;
  let saving: Promise<void> = Promise.resolve();
  let newest: ModelMessage[] | undefined;
  let failure: unknown;
  return {
    id,
    history: history as ModelMessage[],
    ...(summary ? { summary } : {}),
    onMessages(messages) {
      // A save not yet started takes the newest messages (each holds all before it): turns that come faster
      // than the store writes skip the saves already outdated, and the last save is always the newest.
      const queued = newest !== undefined;
      newest = [...messages];
      if (queued) return;
      saving = saving
        .then(() => {
          const next = newest!;
          newest = undefined;
          return writer.write(next);
        })
        .catch((e: unknown) => {
          failure = e;
          logger.warn("conversation.save-failed", { conversationId: id, error: e instanceof Error ? e.message : String(e) });
        });
    },
    onUsage(usage, requestMessages) {
      // The system prompt is in the request, not in the conversation; the response adds one message.
      writer.state.tokens = { count: usage.inputTokens + usage.outputTokens, messages: requestMessages };
    },
    async mark() {
      await saving;
      return writer.mark();
    },
    async end() {
      await saving;
      if (failure) throw failure;
    },
  };
}

/** When a summarised conversation is cut, it is cut to this share of its bound: a summary is not written every run. */
const SUMMARISE_DOWN_TO = 0.5;

/**
 * The conversation's messages cut to its bound by the growth policy (trim-conversation.ts): the oldest
 * whole turns dropped, or with `summarise` (and a model to ask), dropped down to half the bound and
 * replaced by the model's summary of them. A summary that fails is one warning, and the cut stays a drop.
 */
async function cutToBound(
  conversation: Conversation,
  bounds: { maxTokens: number; maxBytes?: number; growth?: GrowthPolicy },
  run: { conversationId: string; logger: Logger; model?: LanguageModel; signal?: AbortSignal },
): Promise<{ messages: ModelMessage[]; dropped: number; summary?: ConversationSummaryReport }> {
  const { messages, tokens } = conversation;
  const first = trimConversation(messages, bounds, tokens);
  const summarise = bounds.growth === "summarise" && run.model !== undefined && first.dropped > 0;
  // Room for the summary, and a margin so the next runs fit before another one is needed.
  const reserve = summarise ? summaryTokens(bounds.maxTokens) : 0;
  const target = Math.max(1, Math.floor(bounds.maxTokens * SUMMARISE_DOWN_TO) - reserve);
  const cut = summarise ? trimConversation(messages, { ...bounds, maxTokens: target }, tokens) : first;
  const { conversationId, logger } = run;
  const trimmed = (c: Trimmed) => {
    if (c.dropped > 0)
      logger.info("conversation.trimmed", { conversationId, dropped: c.dropped, kept: c.messages.length, tokens: c.tokens });
    return c;
  };
  if (!summarise || cut.dropped === 0) return trimmed(cut);
  try {
    const s = await summariseTurns(run.model!, messages.slice(0, cut.dropped), { maxOutputTokens: reserve, signal: run.signal });
    trimmed(cut);
    logger.info("conversation.summarised", { conversationId, messages: cut.dropped, usage: s.usage });
    return { messages: [...s.pair, ...cut.messages], dropped: cut.dropped, summary: { messages: cut.dropped, usage: s.usage } };
  } catch (e) {
    // The run goes on as under `drop`: the turns that did not fit are cut, nothing more.
    logger.warn("conversation.summary-failed", { conversationId, error: e instanceof Error ? e.message : String(e) });
    return trimmed(first);
  }
}

/** The one line for a conversation the owner cannot continue: another principal's, or unknown. */
async function missing(store: ConversationStore, id: string, owner: string): Promise<AgentdError> {
  return (await store.heldByAnother?.(id, owner)) ? forbiddenConversation(id) : unknownConversation(id);
}

/** Which conversation `ref` names, and what is stored under it. */
async function resolve(
  store: ConversationStore,
  ref: ConversationRef,
  owner: string,
  scope: string | undefined,
): Promise<{ id: string; existing?: VersionedConversation }> {
  if (typeof ref === "string" || ("id" in ref && !("owner" in ref))) {
    const id = checkConversationId(typeof ref === "string" ? ref : ref.id);
    const existing = await store.get(id, owner);
    const mustExist = typeof ref !== "string" && !(ref as { create?: boolean }).create;
    if (!existing && mustExist) throw await missing(store, id, owner);
    return { id, existing };
  }
  if ("owner" in ref) {
    const existing = await store.get(checkConversationId(ref.id), owner);
    if (!existing) throw await missing(store, ref.id, owner);
    return { id: ref.id, existing };
  }
  if ("newest" in ref) {
    const newest = (await store.list(owner)).find((c) => scope === undefined || c.scope === scope);
    const existing = newest ? await store.get(newest.id, owner) : undefined;
    if (existing) return { id: newest!.id, existing };
  }
  return { id: newConversationId() };
}
