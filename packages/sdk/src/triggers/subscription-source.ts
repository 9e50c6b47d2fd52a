/**
 * Reactive trigger: an MCP resource subscription as an event source.
 *
 * Level-triggered: subscribe, then read IMMEDIATELY (the first read always emits, so a change made while
 * agentd was down is not lost; the stable run id lets the run find it "already done"), then on every
 * `notifications/resources/updated` read again and emit when the content changed. On a reconnect:
 * re-subscribe and re-read (emitting only if the state changed while down). A server without subscription
 * support is polled when `pollIntervalMs` is set, and refused with a clear error otherwise.
 *
 * The observed version is the SHA-256 of the contents (MCP has no resource version field), so the run id
 * names a state: a resource that flips A → B → A gets A's run id again, and a run that keys "already
 * done" on it will treat the second A as done. Reactions that must tell those apart should record more
 * than the run id (e.g. the state they acted on) through their MCP store.
 */
import { AgentdError } from "../wire/errors.ts";
import type { TimerHandle } from "./clock.ts";
import { boundedRequest } from "./client-requests.ts";
import { watchResourceUpdates } from "./resource-updates.ts";
import { contentHash, subscriptionRunId } from "./run-id.ts";
import type { EventSource, SourceContext } from "./types.ts";

/** One content item of a `resources/read` result. */
export interface ResourceContents {
  uri: string;
  text?: string;
  blob?: string;
  mimeType?: string;
}

/** What a subscription trigger needs from an MCP client (the real client implements it; tests fake it). */
export interface SubscribableClient {
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
  readResource(uri: string): Promise<{ contents: ResourceContents[] }>;
  /** Listen to `notifications/resources/updated`; returns the unsubscribe function. */
  onResourceUpdated(listener: (uri: string) => void): () => void;
  /** Whether the server declared `resources.subscribe` (and the transport can carry its notifications). */
  supportsSubscribe(): boolean;
  /** Why the client cannot push updates, when a setting is the reason (named in the refusal). */
  noPushReason?(): string | undefined;
  /** Listen to reconnects of the underlying session (a new stream or process). */
  onReconnected?(listener: () => void): () => void;
}

/** Options of a {@link SubscriptionSource}. */
export interface SubscriptionSourceOptions {
  client: SubscribableClient;
  uri: string;
  /** The server's configured name, for error messages. */
  server?: string;
  /** Poll this often when the server cannot push updates (else such a server is refused at start). */
  pollIntervalMs?: number;
}

/**
 * MCP says the updated URI "might be a sub-resource of the one that the client actually subscribed to"
 * (schema, ResourceUpdatedNotification). So a notification for the URI itself or one below it (after a
 * `/`, `?` or `#`) means: read the subscribed resource again.
 */
export function concernsResource(subscribed: string, updated: string): boolean {
  if (updated === subscribed) return true;
  if (!updated.startsWith(subscribed)) return false;
  return subscribed.endsWith("/") || "/?#".includes(updated.charAt(subscribed.length));
}

/** Emits one event per observed state of one resource. See the module header. */
export class SubscriptionSource implements EventSource {
  readonly kind = "subscription" as const;
  private context: SourceContext | undefined;
  private lastEmitted: string | undefined;
  private reading = false;
  private dirty = false;
  private stopped = false;
  private offs: Array<() => void> = [];
  private poll: TimerHandle | undefined;
  private subscribed = false;

  constructor(private readonly options: SubscriptionSourceOptions) {
    if (options.pollIntervalMs !== undefined && !(options.pollIntervalMs > 0))
      throw new AgentdError("E_CONFIG_INVALID", `subscription ${options.uri}: pollInterval must be a duration > 0`);
  }

  async start(context: SourceContext): Promise<void> {
    this.context = context;
    const { client, uri } = this.options;
    if (!client.supportsSubscribe()) {
      const noPush = client.noPushReason?.();
      if (this.options.pollIntervalMs === undefined)
        throw new AgentdError(
          "E_CAPABILITY",
          `trigger '${context.triggerId}': server '${this.options.server ?? "?"}' ${
            noPush ? `gets no updates: ${noPush}` : "does not support resource subscriptions; set pollInterval to poll instead"
          }`,
        );
      context.logger.info("trigger.poll", { uri, everyMs: this.options.pollIntervalMs });
      await this.firstRead(async () => {});
      this.armPoll();
      return;
    }
    // Listen before subscribing: an update racing the first read is then read again, not lost.
    // Indexed by URI: a notification costs the same however many resources the client has subscribed.
    this.offs.push(watchResourceUpdates(client, uri, () => void this.refresh()));
    if (client.onReconnected) this.offs.push(client.onReconnected(() => void this.resubscribe()));
    await this.firstRead(async () => {
      await boundedRequest(client, () => client.subscribe(uri));
      this.subscribed = true;
    });
  }

  // Subscribe (if pushing), then read at once. A read failure here fails start: the level-triggered
  // guarantee rests on this read. Updates meanwhile only mark the state dirty; one more read follows.
  private async firstRead(subscribe: () => Promise<void>): Promise<void> {
    this.reading = true;
    try {
      await subscribe();
      await this.readOnce();
    } finally {
      this.reading = false;
    }
    if (this.dirty) void this.refresh();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const off of this.offs) off();
    this.offs = [];
    if (this.poll && this.context) this.context.clock.clearTimer(this.poll);
    if (this.subscribed) {
      this.subscribed = false;
      const { client, uri } = this.options;
      await boundedRequest(client, () => client.unsubscribe(uri)).catch((error: unknown) => {
        this.context?.logger.debug("trigger.unsubscribe-failed", { uri: this.options.uri, error: String(error) });
      });
    }
  }

  private async resubscribe(): Promise<void> {
    if (this.stopped) return;
    try {
      const { client, uri } = this.options;
      await boundedRequest(client, () => client.subscribe(uri));
    } catch (error) {
      this.context?.logger.warn("trigger.resubscribe-failed", { uri: this.options.uri, error: String(error) });
      return;
    }
    await this.refresh();
  }

  private armPoll(): void {
    const { clock } = this.context as SourceContext;
    this.poll = clock.setTimer(this.options.pollIntervalMs as number, () => {
      if (this.stopped) return;
      void this.refresh().finally(() => this.stopped || this.armPoll());
    });
  }

  // Reads never overlap: an update during a read marks the state dirty and one more read follows, so
  // events are emitted in the order the server's states were observed.
  private async refresh(): Promise<void> {
    if (this.reading) {
      this.dirty = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.dirty = false;
        try {
          await this.readOnce();
        } catch (error) {
          this.context?.logger.warn("trigger.read-failed", { uri: this.options.uri, error: String(error) });
        }
      } while (this.dirty && !this.stopped);
    } finally {
      this.reading = false;
    }
  }

  // The first read after start always emits (nothing emitted yet); later ones only on a new content hash.
  private async readOnce(): Promise<void> {
    const context = this.context as SourceContext;
    const { uri } = this.options;
    const { client } = this.options;
    const { contents } = await boundedRequest(client, () => client.readResource(uri));
    if (this.stopped) return;
    const version = contentHash(JSON.stringify(contents.map((c) => [c.uri, c.mimeType ?? null, c.text ?? null, c.blob ?? null])));
    if (version === this.lastEmitted) return;
    this.lastEmitted = version;
    const text = contents.flatMap((c) => (c.text === undefined ? [] : [c.text])).join("\n");
    void context.emit({
      triggerId: context.triggerId,
      kind: "subscription",
      key: uri,
      at: new Date(context.clock.now()),
      data: { uri, text, version, contents },
      runId: subscriptionRunId(context.triggerId, uri, version),
    });
  }
}
