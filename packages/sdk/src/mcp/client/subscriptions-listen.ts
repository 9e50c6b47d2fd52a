/**
 * The client's side of `subscriptions/listen` (2026-07-28), standing in for `resources/subscribe` and the
 * unsolicited list-change notifications of the handshake revisions, so the reactive core is the same on
 * both: `subscribe(uri)` resolves once the server has acknowledged a filter holding `uri`, and updates
 * arrive as `resourceUpdated` events.
 *
 * One listen is open at a time, holding the whole filter. Changing the filter opens a new listen, waits
 * for its acknowledgement, and only then cancels the old one (subscriptions spec: the acknowledgement
 * precedes every notification of its subscription), so nothing falls between the two. Notifications are
 * accepted only from the active listen (stdio shares one channel: clients MUST correlate by
 * `io.modelcontextprotocol/subscriptionId`).
 */
import { AgentdError } from "../../wire/errors.ts";
import type { RequestId } from "../../wire/jsonrpc.ts";
import { STATELESS_META } from "../../wire/schemas/stateless-meta.ts";
import type { SubscriptionFilter } from "../../wire/types/methods-2026-07-28.generated.ts";
import type { Logger } from "../../log.ts";
import type { Protocol } from "../protocol/protocol.ts";

interface Open {
  id: RequestId | undefined;
  abort: AbortController;
  acked: boolean;
  ack: (filter: SubscriptionFilter) => void;
  fail: (e: unknown) => void;
}

/** The open listen of one connection. */
export class ListenManager {
  private active: Open | undefined;
  private opening: Open | undefined;
  private chain: Promise<void> = Promise.resolve();
  private honored: SubscriptionFilter = {};

  constructor(
    private readonly protocol: Protocol,
    private readonly logger: Logger,
    /** The list changes to ask for besides resource subscriptions (those the server declared). */
    private readonly lists: Omit<SubscriptionFilter, "resourceSubscriptions">,
    private readonly timeoutMs: number | undefined,
  ) {}

  /** What the server agreed to send on the active listen. */
  get honoredFilter(): SubscriptionFilter {
    return this.honored;
  }

  /** Whether a notification belongs to the active listen (by its `_meta` subscription id). */
  accepts(params: Record<string, unknown>): boolean {
    const id = (params._meta as Record<string, unknown> | undefined)?.[STATELESS_META.subscriptionId];
    return this.active !== undefined && this.active.id !== undefined && id === this.active.id;
  }

  /** `notifications/subscriptions/acknowledged`: settles the listen it names. */
  acknowledged(params: Record<string, unknown>): void {
    const id = (params._meta as Record<string, unknown> | undefined)?.[STATELESS_META.subscriptionId];
    const open = this.opening?.id === id ? this.opening : undefined;
    if (open === undefined) {
      this.logger.debug("mcp.listen.ack_ignored", { id: id as string });
      return;
    }
    open.ack((params.notifications ?? {}) as SubscriptionFilter);
  }

  /** Listen with `uris` as the resource subscriptions (serialised: one change at a time, in call order). */
  update(uris: readonly string[]): Promise<void> {
    const next = this.chain.then(() => this.replace([...uris]));
    this.chain = next.catch(() => {});
    return next;
  }

  /** Stop listening (cancels the active listen). */
  close(): void {
    this.active?.abort.abort();
    this.active = undefined;
  }

  private async replace(uris: string[]): Promise<void> {
    const filter: SubscriptionFilter = { ...this.lists };
    if (uris.length > 0) filter.resourceSubscriptions = uris;
    let open!: Open;
    const acked = new Promise<SubscriptionFilter>((resolve, reject) => {
      open = { id: undefined, abort: new AbortController(), acked: false, ack: resolve, fail: reject };
    });
    this.opening = open;
    const done = this.protocol.request(
      "subscriptions/listen",
      { notifications: filter },
      {
        signal: open.abort.signal,
        // The request lives as long as the subscription: only the acknowledgement is timed (below).
        timeoutMs: Infinity,
        onRequestId: (id) => (open.id = id),
      },
    );
    done.then(
      () => this.ended(open, "graceful"),
      (e: unknown) => {
        open.fail(e);
        this.ended(open, e);
      },
    );
    const timer =
      this.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => open.fail(new AgentdError("E_TIMEOUT", `subscriptions/listen was not acknowledged within ${this.timeoutMs}ms`)),
            this.timeoutMs,
          );
    try {
      this.honored = await acked;
    } catch (e) {
      open.abort.abort();
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      if (this.opening === open) this.opening = undefined;
    }
    open.acked = true;
    const previous = this.active;
    this.active = open;
    previous?.abort.abort();
    const missing = uris.filter((u) => !this.honored.resourceSubscriptions?.includes(u));
    if (missing.length > 0) throw new AgentdError("E_CAPABILITY", `the server did not accept a subscription to ${missing.join(", ")}`);
  }

  /** A listen ended: the server closed it on purpose, or it failed; the active one is gone either way. */
  private ended(open: Open, how: "graceful" | unknown): void {
    if (this.active !== open) return;
    this.active = undefined;
    if (how === "graceful") this.logger.info("mcp.listen.ended", { by: "server" });
    else if (!this.protocol.closed) this.logger.warn("mcp.listen.failed", { error: how instanceof Error ? how.message : String(how) });
  }
}
