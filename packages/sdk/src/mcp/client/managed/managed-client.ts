/**
 * `ManagedMcpClient`: one MCP server connection that survives failure. It owns a fresh transport and
 * {@link McpClient} per connection; when the connection drops (a stdio child exits, an HTTP session
 * expires, the server-push stream is gone for good) it reconnects with bounded exponential backoff and full
 * jitter, re-initializes, re-subscribes every subscription, then emits `reconnected`. Consumers re-read
 * what they subscribed to on `reconnected` (level-triggered: a change made while down is not lost).
 *
 * Calls made while reconnecting wait for the connection (bounded by their own timeout and signal). A call
 * interrupted by the loss is replayed once when that is safe (see `replay-policy.ts`), else it fails with a
 * clear error. Behaviour on failure is described in this folder's README.
 */
import { nullLogger, type Logger } from "../../../log.ts";
import { AgentdError } from "../../../wire/errors.ts";
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
} from "../../../wire/index.ts";
import type { ProtocolRevision } from "../../../wire/codec.ts";
import { McpClient, type CallToolOptions } from "../client.ts";
import { Emitter, type Listener, type Unsubscribe } from "../../protocol/emitter.ts";
import type { RequestOptions } from "../../protocol/types.ts";
import { reconnectBackoff, reconnectPolicy, sleep, type ReconnectPolicy } from "./backoff.ts";
import type { ManagedClientEvents, ManagedClientOptions, ManagedClientState } from "./managed-options.ts";
import { settleDeclaredRoots, watchRootsRequests } from "../roots-settle.ts";
import { ReadyGate } from "./ready-gate.ts";
import { carriesRunId, connectionLoss, interruptedError, mayReplay, type LossReason } from "./replay-policy.ts";
import { TappedTransport } from "./tapped-transport.ts";

export type { ManagedClientEvents, ManagedClientOptions, ManagedClientState };

/** A connection shorter than this counts as a failed attempt, so a flapping server backs off too. */
const STABLE_MS = 10_000;
/** How long a call waits for a reconnect when it gave no timeout (ms). */
const DEFAULT_WAIT_MS = 60_000;

type WaitOptions = { signal?: AbortSignal; timeoutMs?: number };

/** A client of one MCP server that reconnects by itself. Structurally a triggers `SubscribableClient`. */
export class ManagedMcpClient {
  readonly name: string;
  readonly events: Emitter<ManagedClientEvents>;
  private readonly logger: Logger;
  private readonly policy: ReconnectPolicy;
  private readonly gate = new ReadyGate<McpClient>();
  private readonly subs = new Set<string>();
  private readonly stopping = new AbortController();
  /** The server-push stream state after the last (re)connect (Streamable HTTP only; undefined on stdio). */
  private pushState: string | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  /** Why each dropped connection was given up. */
  private readonly lossOf = new WeakMap<McpClient, LossReason>();
  private stateValue: ManagedClientState = "idle";
  private client: McpClient | undefined;
  private last: McpClient | undefined;
  private offs: Unsubscribe[] = [];
  private connectedAt = 0;
  private nextAttempt = 0;
  private failure: AgentdError | undefined;
  private closing: Promise<void> | undefined;
  /** Roots a reload replaced (undefined: the configured ones). */
  private roots: Root[] | undefined;

  constructor(private readonly options: ManagedClientOptions) {
    this.name = options.name;
    this.logger = (options.logger ?? nullLogger).child({ server: options.name });
    this.policy = reconnectPolicy(options.reconnect);
    this.events = new Emitter((event, error) => this.logger.warn("mcp.listener_error", { listener: event, error }));
  }

  // ---- state ----

  /** Where the client is now. */
  get state(): ManagedClientState {
    return this.stateValue;
  }
  /** The live underlying client, while connected. */
  get current(): McpClient | undefined {
    return this.stateValue === "connected" ? this.client : undefined;
  }
  /** Whether a connection is up now. */
  get connected(): boolean {
    return this.stateValue === "connected" && this.client?.connected === true;
  }
  /** What the server declared on the latest connection (`{}` before the first). */
  get serverCapabilities(): ServerCapabilities {
    return this.last?.serverCapabilities ?? {};
  }
  /** The server's implementation info, instructions and negotiated revision (latest connection). */
  get serverInfo(): Implementation | undefined {
    return this.last?.serverInfo;
  }
  get instructions(): string | undefined {
    return this.last?.instructions;
  }
  get protocolVersion(): ProtocolRevision | undefined {
    return this.last?.protocolVersion;
  }

  /** Listen to an event; returns the unsubscribe function. */
  on<K extends keyof ManagedClientEvents>(event: K, listener: Listener<ManagedClientEvents[K]>): Unsubscribe {
    return this.events.on(event, listener);
  }

  // ---- lifecycle ----

  /**
   * Connect for the first time. Rejects without retrying (a required server that is down at start-up is a
   * clear error, not a silent wait); reconnecting applies only to connections that were once up.
   */
  async start(options: { timeoutMs?: number } = {}): Promise<void> {
    if (this.stateValue !== "idle") throw new AgentdError("E_USAGE", `MCP server '${this.name}': start() called twice`);
    this.stateValue = "connecting";
    try {
      const client = await this.open(options.timeoutMs);
      if (this.isClosed()) {
        await client.close().catch(() => {});
        throw new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.name}': closed during start`);
      }
      this.adopt(client);
    } catch (e) {
      if (!this.isClosed()) this.stateValue = "idle";
      this.gate.fail(e);
      throw e;
    }
  }

  /** Stop reconnecting and close the connection; pending waits reject. Idempotent; leaves no timer. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.stateValue = "closed";
      this.stopping.abort();
      this.gate.fail(new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.name}': the client was closed`));
      for (const off of this.offs) off();
      this.offs = [];
      const client = this.client;
      this.client = undefined;
      await Promise.allSettled([client?.close(), ...this.pending]);
      this.events.emit("closed");
    })();
    return this.closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---- the MCP surface (each call waits for a connection and may be replayed once; see replay-policy) ----

  /** Send any request through the capability gate. `tools/call` is replayed only with a run id in `_meta`. */
  request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    return this.invoke(method, carriesRunId(params, options.meta), options, (c) => c.request<T>(method, params, options));
  }
  ping(options: RequestOptions = {}): Promise<void> {
    return this.invoke("ping", false, options, (c) => c.ping(options));
  }
  listTools(options: RequestOptions = {}): Promise<Tool[]> {
    return this.invoke("tools/list", false, options, (c) => c.listTools(options));
  }
  /** Call a tool; the run id always travels in `_meta`, so a session loss may replay it once. */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    return this.invoke("tools/call", true, options, (c) => c.callTool(name, args, options));
  }
  listResources(options: RequestOptions = {}): Promise<Resource[]> {
    return this.invoke("resources/list", false, options, (c) => c.listResources(options));
  }
  listResourceTemplates(options: RequestOptions = {}): Promise<ResourceTemplate[]> {
    return this.invoke("resources/templates/list", false, options, (c) => c.listResourceTemplates(options));
  }
  readResource(uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return this.invoke("resources/read", false, options, (c) => c.readResource(uri, options));
  }
  /** Subscribe to `uri`; kept and re-sent on every reconnect until {@link unsubscribe}. */
  async subscribe(uri: string, options: RequestOptions = {}): Promise<void> {
    // Recorded first, so a reconnect racing this call re-sends it too; a refusal forgets it again.
    const known = this.subs.has(uri);
    this.subs.add(uri);
    try {
      await this.invoke("resources/subscribe", false, options, async (c) => {
        if (!c.isSubscribed(uri)) await c.subscribe(uri, options);
      });
    } catch (e) {
      if (!known) this.subs.delete(uri);
      throw e;
    }
  }
  async unsubscribe(uri: string, options: RequestOptions = {}): Promise<void> {
    this.subs.delete(uri);
    await this.invoke("resources/unsubscribe", false, options, async (c) => {
      if (c.isSubscribed(uri)) await c.unsubscribe(uri, options);
    });
  }
  /**
   * Replace the roots (only where roots were declared: elsewhere nothing is sent) and notify the server;
   * a reconnect declares the new ones.
   */
  async setRoots(roots: Root[]): Promise<void> {
    if (!this.options.client?.capabilities?.roots) return;
    this.roots = [...roots];
    if (this.connected) await this.client?.setRoots(this.roots);
  }

  /** The URIs subscribed to (re-sent after every reconnect). */
  subscriptions(): string[] {
    return [...this.subs];
  }
  listPrompts(options: RequestOptions = {}): Promise<Prompt[]> {
    return this.invoke("prompts/list", false, options, (c) => c.listPrompts(options));
  }
  getPrompt(name: string, args?: Record<string, string>, options: RequestOptions = {}): Promise<GetPromptResult> {
    return this.invoke("prompts/get", false, options, (c) => c.getPrompt(name, args, options));
  }
  complete(params: CompleteRequestParams, options: RequestOptions = {}): Promise<CompleteResult> {
    return this.invoke("completion/complete", false, options, (c) => c.complete(params, options));
  }
  setLoggingLevel(level: LoggingLevel, options: RequestOptions = {}): Promise<void> {
    return this.invoke("logging/setLevel", false, options, (c) => c.setLoggingLevel(level, options));
  }

  // ---- triggers' SubscribableClient ----

  /** Listen to `notifications/resources/updated` (across reconnects). */
  onResourceUpdated(listener: (uri: string) => void): () => void {
    return this.on("resourceUpdated", (p) => listener(p.uri));
  }
  /** Whether the server declared `resources.subscribe` on the latest connection. */
  supportsSubscribe(): boolean {
    // Over HTTP, updates arrive on the standalone GET stream: a server that refuses it cannot push them.
    return (
      this.serverCapabilities.resources?.subscribe === true &&
      this.pushState !== "unsupported" &&
      this.pushState !== "failed" &&
      this.pushState !== "off"
    );
  }
  /** Why this server cannot push updates, when the reason is a setting of ours (undefined otherwise). */
  noPushReason(): string | undefined {
    return this.pushState === "off" ? (this.options.pushOffReason ?? "server push over HTTP is switched off") : undefined;
  }
  /** Listen to reconnects; subscriptions are already re-sent when it fires, so re-read. */
  onReconnected(listener: () => void): () => void {
    return this.on("reconnected", () => listener());
  }

  // ---- internals ----

  private isClosed(): boolean {
    return this.stateValue === "closed";
  }

  /** Run `fn` on a live client; on connection loss, replay once when {@link mayReplay} allows. */
  private async invoke<T>(method: string, runId: boolean, options: WaitOptions, fn: (client: McpClient) => Promise<T>): Promise<T> {
    for (let replayed = false; ; replayed = true) {
      const client = await this.ready(method, options);
      try {
        return await fn(client);
      } catch (e) {
        const seen = connectionLoss(e);
        if (!seen || this.isClosed() || options.signal?.aborted) throw e;
        // Session loss may surface on the request before (or instead of) onerror. A "closed" error from the
        // connection that is still current and up is one broken stream, not a lost connection.
        if (seen === "closed" && client === this.client && client.connected) throw e;
        this.lost(client, seen, e);
        // Judge the request by why its connection was dropped: after a session loss we close the old client,
        // and that close may reach the request before its own E_SESSION_EXPIRED does.
        const loss = this.lossOf.get(client) ?? seen;
        if (replayed || !mayReplay(method, runId, loss, e)) throw interruptedError(this.name, method, loss, replayed, e);
        this.logger.info("mcp.retry", { method, reason: loss });
      }
    }
  }

  /** A live client, waiting for a reconnect in progress. */
  private ready(method: string, options: WaitOptions): Promise<McpClient> {
    const s = this.stateValue;
    if (s === "connected" && this.client) return Promise.resolve(this.client);
    if (s === "closed") return Promise.reject(new AgentdError("E_CONNECTION_CLOSED", `MCP server '${this.name}': the client is closed`));
    if (s === "idle") return Promise.reject(new AgentdError("E_USAGE", `MCP server '${this.name}': call start() before ${method}`));
    if (s === "failed") return Promise.reject(this.failure);
    return this.gate.wait(
      `MCP server '${this.name}': ${method}`,
      options.timeoutMs ?? this.options.client?.requestTimeoutMs ?? DEFAULT_WAIT_MS,
      options.signal,
    );
  }

  /** Build a transport and a client, and run the handshake. */
  private async open(timeoutMs = this.options.connectTimeoutMs ?? 30_000): Promise<McpClient> {
    let client: McpClient | undefined;
    const inner = this.options.transportFactory();
    const transport = new TappedTransport(inner, (reason, e) => client && this.lost(client, reason, e));
    const o = this.options.client;
    const capabilities = this.roots && o?.capabilities ? { capabilities: { ...o.capabilities, roots: this.roots } } : {};
    client = new McpClient(this.options.clientInfo, { serverName: this.name, ...o, ...capabilities, logger: this.logger });
    const askedRoots = watchRootsRequests(client);
    await client.connect(transport, { timeoutMs, signal: this.stopping.signal });
    this.pushState =
      this.options.push === false && isHttpTransport(inner) ? "off" : await settlePushStream(inner, client, this.logger, this.name);
    // Calls wait for the gate: open it once a server that asked for our roots at start-up has applied them.
    await settleDeclaredRoots(
      client,
      this.roots ?? this.options.client?.capabilities?.roots,
      askedRoots,
      this.logger,
      this.stopping.signal,
    ).catch(async (e: unknown) => {
      await client?.close().catch(() => {});
      throw e;
    });
    return client;
  }

  /** Make `client` the live connection and forward its events. */
  private adopt(client: McpClient): void {
    this.client = client;
    this.last = client;
    this.connectedAt = Date.now();
    this.stateValue = "connected";
    const e = this.events;
    this.offs = [
      client.on("resourceUpdated", (p) => e.emit("resourceUpdated", p)),
      client.on("resourcesListChanged", () => e.emit("resourcesListChanged")),
      client.on("toolsListChanged", () => e.emit("toolsListChanged")),
      client.on("promptsListChanged", () => e.emit("promptsListChanged")),
      client.on("log", (p) => e.emit("log", p)),
      client.on("close", () => this.lost(client, "closed")),
    ];
    // It may have died between its handshake and now, before anyone listened for `close`.
    if (client.connected) this.gate.open(client);
    else this.lost(client, "closed");
  }

  /** The connection `client` is gone: start reconnecting (once per connection). */
  private lost(client: McpClient, reason: LossReason, error?: unknown): void {
    if (client !== this.client || this.stateValue !== "connected") return;
    this.stateValue = "reconnecting";
    this.lossOf.set(client, reason);
    for (const off of this.offs) off();
    this.offs = [];
    const detail = error instanceof Error ? error.message : undefined;
    this.logger.warn("mcp.disconnected", { reason, error: detail || undefined });
    this.events.emit("disconnected", { reason, error: detail || undefined });
    this.track(client.close().catch(() => {}));
    const flapping = Date.now() - this.connectedAt < STABLE_MS;
    this.track(this.reconnect(flapping ? this.nextAttempt : 0));
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async reconnect(first: number): Promise<void> {
    let lastError = "";
    for (let n = 0; n < this.policy.maxAttempts; n++) {
      const delayMs = reconnectBackoff(first + n, this.policy);
      this.logger.info("mcp.reconnecting", { attempt: n + 1, delayMs });
      await sleep(delayMs, this.stopping.signal);
      if (this.isClosed()) return;
      let client: McpClient;
      try {
        client = await this.open();
        await this.resubscribe(client);
      } catch (e) {
        if (this.isClosed()) return;
        lastError = e instanceof Error ? e.message : String(e);
        this.logger.warn("mcp.reconnect_failed", { attempt: n + 1, error: lastError });
        continue;
      }
      if (this.isClosed()) {
        await client.close().catch(() => {});
        return;
      }
      this.nextAttempt = first + n + 1;
      this.adopt(client);
      if (this.stateValue !== "connected") return; // it died at once: adopt() started the next round
      this.logger.info("mcp.reconnected", { attempts: n + 1, subscriptions: this.subs.size, protocolVersion: client.protocolVersion });
      this.events.emit("reconnected", { attempts: n + 1 });
      return;
    }
    this.stateValue = "failed";
    this.failure = new AgentdError(
      "E_UPSTREAM",
      `MCP server '${this.name}' is unavailable: gave up reconnecting after ${this.policy.maxAttempts} attempts (last: ${lastError})`,
      { data: { server: this.name } },
    );
    this.logger.error("mcp.reconnect_gave_up", { attempts: this.policy.maxAttempts, error: lastError });
    this.gate.fail(this.failure);
    this.events.emit("failed", { attempts: this.policy.maxAttempts, error: lastError });
  }

  /** Re-send every subscription on a new connection. A refusal is logged; a broken connection fails the attempt. */
  private async resubscribe(client: McpClient): Promise<void> {
    try {
      for (const uri of this.subs) {
        try {
          await client.subscribe(uri);
        } catch (e) {
          if (connectionLoss(e) || !client.connected) throw e;
          this.logger.warn("mcp.resubscribe_failed", { uri, error: e instanceof Error ? e.message : String(e) });
        }
      }
    } catch (e) {
      await client.close().catch(() => {});
      throw e;
    }
  }
}

/** Whether a transport has a separate server-push stream (Streamable HTTP). */
const isHttpTransport = (transport: unknown): boolean => typeof (transport as { openGetStream?: unknown }).openGetStream === "function";

/** How long the start-up waits for the first attempt of an HTTP server-push stream to settle. */
const PUSH_SETTLE_MS = 5_000;

/**
 * For a transport with a server-push stream (Streamable HTTP), wait (bounded) for its first attempt so that
 * `supportsSubscribe()` can tell a server that refuses the stream (405) from one that offers it. Other
 * transports (stdio) push on the same channel: `undefined`.
 */
async function settlePushStream(transport: unknown, client: McpClient, logger: Logger, name: string): Promise<string | undefined> {
  const t = transport as { openGetStream?: () => Promise<string> };
  if (typeof t.openGetStream !== "function" || client.serverCapabilities.resources?.subscribe !== true) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const state = await Promise.race([
    t.openGetStream().catch(() => "failed"),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve("connecting"), PUSH_SETTLE_MS))),
  ]);
  clearTimeout(timer);
  if (state === "unsupported" || state === "failed") logger.warn("mcp.push_unavailable", { server: name, getStream: state });
  return state;
}
