/**
 * The checkpoint's optional heavier tier ("warm reactive-session context"), off by default
 * (`durability.checkpoint.resumeConversations`): a triggered run's conversation — its messages after each
 * turn whose tool results are in — is written through the MCP store under `conversations/<runId>`, so a run
 * re-run under the same run id after a restart or a takeover goes on from there (the model sees the
 * earlier turns; their tool calls are not made again). Bounded: a conversation over `maxBytes` is not
 * written (one warning line a run) and the one saved before it is deleted, so a re-run starts over rather
 * than from a stale turn. Expiring: a document older than `ttlMs` is ignored and deleted. The document is
 * deleted when the run ends (not when it is aborted: a shutdown's re-run may still use it); one whose run is
 * never run again (a served run its caller gave up on) is swept once expired, from the first save on
 * (store/retention.ts, every quarter of `ttlMs`, at most hourly).
 *
 * Only the conversation is kept — text, tool calls, tool results, reasoning parts (each adapter sends back
 * only its own provider's, see `model/language-model.ts`) — never pipes, sockets or processes.
 */
import { sha256 } from "../../_internal/hash.ts";
import * as v from "valibot";
import type { Logger } from "../../log.ts";
import type { ModelMessage } from "../../model/language-model.ts";
import { StoreSweeper, sweepInterval, type SweepStore } from "../../store/retention.ts";

/** What the conversations need of a store ({@link StoreClient} over any MCP store). */
export interface ConversationStore {
  get(key: string): Promise<{ version: number; value: unknown } | undefined>;
  put(key: string, value: unknown): Promise<number>;
  delete(key: string, expectedVersion?: number): Promise<boolean>;
  /** With it, expired conversations are swept. */
  list?: SweepStore["list"];
}

/** Options of {@link RunConversations}. */
export interface RunConversationsOptions {
  store: () => Promise<ConversationStore>;
  /** Largest conversation written, in bytes of JSON (default 256 KiB). */
  maxBytes?: number;
  /** How long a saved conversation can be resumed from (default 1 hour). */
  ttlMs?: number;
  logger: Logger;
  now?: () => number;
}

const FORMAT = "agentd.conversation";
const DocumentSchema = v.object({
  format: v.literal(FORMAT),
  version: v.literal(1),
  runId: v.string(),
  expiresAt: v.number(),
  messages: v.array(v.looseObject({ role: v.picklist(["user", "assistant", "tool"]) })),
});

/**
 * The store key of a run's conversation: the run id itself when it is a valid key part, else its SHA-256
 * (a caller's run id can hold any character: two ids must never share a conversation).
 */
export const conversationKey = (runId: string): string =>
  /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,179}$/.test(runId) && !runId.includes("..")
    ? `conversations/${runId}`
    : `conversations/sha256:${sha256(runId, "hex")}`;

/** One run's saved conversation (see {@link RunConversations.open}). */
export interface RunConversation {
  readonly runId: string;
  /** The conversation saved under this run id, if one is there and has not expired. */
  load(): Promise<ModelMessage[] | undefined>;
  /** Save the conversation after a turn (this run's writes are serialised, in order; a failed one is logged). */
  save(messages: readonly ModelMessage[]): Promise<void>;
  /** The run ended: its conversation is no longer needed. */
  end(): Promise<void>;
}

/** See the module header. */
export class RunConversations {
  private readonly maxBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private sweeper: StoreSweeper | undefined;

  constructor(private readonly options: RunConversationsOptions) {
    this.maxBytes = options.maxBytes ?? 256 * 1024;
    this.ttlMs = options.ttlMs ?? 3_600_000;
    this.now = options.now ?? Date.now;
  }

  /** Sweep expired conversations now (the timer does every quarter of the ttl once a conversation was saved). */
  async sweepExpired(): Promise<{ checked: number; deleted: number }> {
    const store = await this.options.store();
    this.sweep(store);
    return (await this.sweeper?.sweep()) ?? { checked: 0, deleted: 0 };
  }

  /** Stop sweeping expired conversations. */
  async close(): Promise<void> {
    await this.sweeper?.stop();
  }

  /** The conversation saved for `runId`, if one is there and has not expired (an expired one is deleted). */
  async load(runId: string): Promise<ModelMessage[] | undefined> {
    const key = conversationKey(runId);
    try {
      const stored = await (await this.options.store()).get(key);
      if (!stored) return undefined;
      const parsed = v.safeParse(DocumentSchema, stored.value);
      if (!parsed.success || parsed.output.runId !== runId) {
        this.options.logger.warn("conversation.ignored", {
          runId,
          key,
          message: "not a saved conversation of this run: the run starts over",
        });
        return undefined;
      }
      if (parsed.output.expiresAt <= this.now()) {
        await (await this.options.store()).delete(key).catch(() => false);
        this.options.logger.info("conversation.expired", { runId, key });
        return undefined;
      }
      return parsed.output.messages as unknown as ModelMessage[];
    } catch (error) {
      this.options.logger.warn("conversation.unavailable", {
        runId,
        error: error instanceof Error ? error.message : String(error),
        message: "the run starts over",
      });
      return undefined;
    }
  }

  /** One run's conversation: saved after each turn, deleted when the run ends; a field of the run (agent/run/run.ts). */
  open(runId: string): RunConversation {
    // Writes of one run are serialised, in order; the chain and the too-large note are the run's own.
    let writes: Promise<void> = Promise.resolve();
    let tooLarge = false;
    const chain = (step: (store: ConversationStore) => Promise<void>): Promise<void> =>
      (writes = writes
        .then(async () => step(await this.options.store()))
        .catch((error: unknown) => {
          this.options.logger.warn("conversation.write-failed", { runId, error: error instanceof Error ? error.message : String(error) });
        }));
    return {
      runId,
      load: () => this.load(runId),
      save: (messages) =>
        chain(async (store) => {
          const document = {
            format: FORMAT,
            version: 1,
            runId,
            savedAt: new Date(this.now()).toISOString(),
            expiresAt: this.now() + this.ttlMs,
            messages,
          };
          const text = JSON.stringify(document);
          const bytes = Buffer.byteLength(text);
          this.sweep(store);
          if (bytes > this.maxBytes) {
            if (!tooLarge) {
              tooLarge = true;
              this.options.logger.warn("conversation.too-large", {
                runId,
                bytes,
                maxBytes: this.maxBytes,
                message: "not saved (raise durability.checkpoint.resumeConversations.maxBytes to keep it): a re-run starts over",
              });
            }
            await store.delete(conversationKey(runId));
            return;
          }
          await store.put(conversationKey(runId), document);
          this.options.logger.info("conversation.saved", { runId, messages: messages.length, bytes });
        }),
      end: () => chain(async (store) => void (await store.delete(conversationKey(runId)))),
    };
  }

  private sweep(store: ConversationStore): void {
    if (this.sweeper || !store.list) return;
    this.sweeper = new StoreSweeper({
      store: async () => store as SweepStore,
      rules: [
        {
          prefix: "conversations/",
          expiresAt: (value) => {
            const at = (value as { expiresAt?: unknown } | undefined)?.expiresAt;
            return typeof at === "number" ? at : undefined;
          },
        },
      ],
      intervalMs: sweepInterval(this.ttlMs),
      logger: this.options.logger,
      name: "conversations",
      now: this.now,
    });
    this.sweeper.start();
  }
}
