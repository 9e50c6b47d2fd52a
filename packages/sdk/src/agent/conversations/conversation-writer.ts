/**
 * How one run's turns are written to its conversation: each save a compare-and-set on the version last
 * read, the run's new messages put after what it was sent (or, after a lost race, after the winner's
 * messages), the front cut to the byte bound. Kept apart from beginning a run (conversation-run.ts) because
 * a run that stops to wait for a decision hands its writer's state over to its resumed part — possibly in
 * another process or on another replica — as a {@link ConversationMark}, saved with the waiting run, and the
 * resumed part goes on writing from it: the first part's saved turns and the resumed turns, each once.
 */
import type { Logger } from "../../log.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { AgentdError } from "../../wire/errors.ts";
import type { Conversation, ConversationStore, VersionedConversation } from "./conversation.ts";
import { trimConversation } from "./trim-conversation.ts";

const MAX_RUNS = 100;
const SAVE_ATTEMPTS = 5;

/** What the model counted at a request: `count` tokens for a request of `messages` messages. */
export type CountedTokens = { count: number; messages: number };

/**
 * Where a run's conversation stood when the run stopped to wait (saved with the waiting run): enough for the
 * resumed part to put its turns after the first part's, once, wherever it runs.
 */
export interface ConversationMark {
  id: string;
  owner: string;
  /** How many of the run's saved messages were its history (sent before its input): its own turns follow. */
  history: number;
  /** The stored version the run last read or wrote, and the counts that stored conversation had. */
  version: number;
  stored: { dropped: number; summaries: number };
  /** Messages of this run in that version (0: none saved yet), after `prefix` messages not its own. */
  saved: number;
  prefix: number;
  /** Whether the run's messages go after exactly its history (nothing saved yet, no race lost). */
  afterHistory: boolean;
  /** Messages the growth policy dropped, and summaries written, before this run's (as its next save records them). */
  dropped: number;
  summaries: number;
  tokens?: CountedTokens;
}

/** A writer's state: see {@link ConversationMark}. */
export interface WriterState {
  current: VersionedConversation;
  prefix: ModelMessage[];
  droppedBefore: number;
  summariesBefore: number;
  savedAdded: number;
  tokens: CountedTokens | undefined;
}

/** What a writer writes for. */
export interface WriterRun {
  id: string;
  owner: string;
  runId: string;
  logger: Logger;
  /** The messages the run was sent before its own (its history): `write` saves what follows them. */
  history: readonly ModelMessage[];
  /** A new conversation, when the stored one is gone. */
  fresh: () => Conversation;
  now: () => string;
}

/**
 * After another writer saved on top of this run's last save: the stored messages without this run's part (the
 * cut the other made at the front shifts it by the messages dropped since, less the two of each summary it
 * put there), so the run's part goes after the other's turns.
 */
export function withoutOwnPart(
  mine: { prefix: number; saved: number; dropped: number; summaries: number },
  again: VersionedConversation | undefined,
): ModelMessage[] {
  const summarised = (again?.conversation.summaries ?? 0) - mine.summaries;
  const shift = (again?.conversation.dropped ?? 0) - mine.dropped - 2 * summarised;
  const at = mine.prefix - shift;
  const theirs = again?.conversation.messages ?? [];
  return mine.saved > 0 && at >= 0 ? [...theirs.slice(0, at), ...theirs.slice(at + mine.saved)] : theirs;
}

/** Writes one run's messages to its conversation: see the module header. */
export class ConversationWriter {
  constructor(
    private readonly store: ConversationStore,
    readonly run: WriterRun,
    private readonly bounds: { maxBytes?: number },
    readonly state: WriterState,
  ) {}

  /** Save the run's messages (its history first): a compare-and-set, retried after a lost race. */
  async write(messages: readonly ModelMessage[]): Promise<void> {
    const { run, state: s } = this;
    const added = messages.slice(run.history.length);
    for (let attempt = 1; ; attempt++) {
      const kept = trimConversation(
        [...s.prefix, ...added],
        { maxTokens: Number.POSITIVE_INFINITY, maxBytes: this.bounds.maxBytes },
        s.tokens,
      );
      const base = s.current.conversation;
      // The model's count holds only for exactly the messages it was sent.
      const counted = s.prefix === run.history && kept.dropped === 0 ? s.tokens : undefined;
      const next: Conversation = {
        ...base,
        messages: kept.messages,
        updatedAt: run.now(),
        runs: [...base.runs.filter((r) => r !== run.runId), run.runId].slice(-MAX_RUNS),
        dropped: s.droppedBefore + kept.dropped,
        ...(s.summariesBefore > 0 ? { summaries: s.summariesBefore } : {}),
        tokens: counted,
      };
      const saved = await this.store.save(next, s.current.version);
      if (saved.ok) {
        s.current = { conversation: next, version: saved.version };
        // The messages this save holds of this run, and where they begin (the front may have been cut).
        s.savedAdded = added.length;
        s.prefix = kept.messages.slice(0, kept.messages.length - added.length);
        s.droppedBefore = next.dropped;
        s.summariesBefore = next.summaries ?? 0;
        return;
      }
      if (attempt >= SAVE_ATTEMPTS)
        throw new AgentdError("E_STORE", `conversation ${run.id} kept changing under this run: its last turns were not saved`);
      run.logger.info("conversation.raced", { conversationId: run.id, attempt });
      this.lost(await this.store.get(run.id, run.owner));
    }
  }

  /** Another writer saved since this run's last read: its part goes after theirs from now on. */
  lost(again: VersionedConversation | undefined): void {
    const s = this.state;
    const base = s.current.conversation;
    s.prefix = withoutOwnPart(
      { prefix: s.prefix.length, saved: s.savedAdded, dropped: base.dropped, summaries: base.summaries ?? 0 },
      again,
    );
    s.current = again ?? { conversation: this.run.fresh(), version: 0 };
    s.savedAdded = 0;
    s.droppedBefore = s.current.conversation.dropped;
    s.summariesBefore = s.current.conversation.summaries ?? 0;
  }

  /** Where the conversation stands for this run now (call once its saves are done). */
  mark(): ConversationMark {
    const { run, state: s } = this;
    const base = s.current.conversation;
    return {
      id: run.id,
      owner: run.owner,
      history: run.history.length,
      version: s.current.version,
      stored: { dropped: base.dropped, summaries: base.summaries ?? 0 },
      saved: s.savedAdded,
      prefix: s.prefix.length,
      afterHistory: s.prefix === run.history,
      dropped: s.droppedBefore,
      summaries: s.summariesBefore,
      ...(s.tokens ? { tokens: s.tokens } : {}),
    };
  }
}

/**
 * The writer's state of a resumed run, from its mark and the conversation as stored now: unchanged since the
 * mark, it goes on as the first part left it; changed (another run continued it meanwhile, or it was cut or
 * deleted), the resumed run's part — the first part's saved turns with it — goes after what is there now.
 */
export function stateFromMark(
  mark: ConversationMark,
  history: ModelMessage[],
  stored: VersionedConversation | undefined,
  fresh: () => Conversation,
): WriterState {
  if (stored && stored.version === mark.version) {
    const messages = stored.conversation.messages;
    return {
      current: stored,
      prefix: mark.afterHistory ? history : messages.slice(0, mark.prefix),
      droppedBefore: mark.dropped,
      summariesBefore: mark.summaries,
      savedAdded: mark.saved,
      tokens: mark.tokens,
    };
  }
  const current = stored ?? { conversation: fresh(), version: 0 };
  return {
    current,
    prefix: withoutOwnPart({ prefix: mark.prefix, saved: mark.saved, ...mark.stored }, stored),
    droppedBefore: current.conversation.dropped,
    summariesBefore: current.conversation.summaries ?? 0,
    savedAdded: 0,
    tokens: undefined,
  };
}
