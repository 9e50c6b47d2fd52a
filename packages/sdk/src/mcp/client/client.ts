/**
 * `McpClient`: one connection to one MCP server. Picks the server's era first (`revision-probe.ts`: a
 * `server/discover` probe; 2026-07-28 when the server speaks it statelessly), else negotiates with
 * `initialize` (offers 2025-11-25, accepts 2025-06-18 and 2025-03-26). Declares only what the capability
 * map says, answers server→client requests — or, statelessly, the same requests embedded in an
 * input-required result — per that map, and exposes the server's tools, resources, prompts and utilities
 * as typed methods; subscriptions ride `resources/subscribe` or `subscriptions/listen` alike.
 *
 * Every `tools/call` carries the run id in `_meta` under {@link RUN_ID_META_KEY}, so a server can make
 * reactions idempotent across restarts.
 *
 * The steps live beside it: revision negotiation (negotiate-revision.ts), the server→client handlers
 * (inbound-handlers.ts), pagination (list-pages.ts), the tool catalog and task calls.
 */
import type { Transport } from "../../transport/types.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import type { StatelessRevision, ProtocolRevision } from "../../wire/codec.ts";
import type { DiscoverResult } from "../../wire/types/methods-2026-07-28.generated.ts";
import type {
  CallToolResult,
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Root,
  ServerCapabilities,
  Tool,
} from "../../wire/index.ts";
import { nullLogger, type Logger } from "../../log.ts";
import { clientCapabilities, clientOutbound, isOn, type CapabilityConfig } from "../capabilities.ts";
import {
  type CallToolOptions,
  type McpClientEvents,
  type McpClientOptions,
  NO_CALL_OPTIONS,
  toolCallLimits,
  toolCallMeta,
  toolCallRequestOptions,
} from "./client-options.ts";
import { installInboundHandlers } from "./inbound-handlers.ts";
import { collectPages } from "./list-pages.ts";
import { negotiateRevision } from "./negotiate-revision.ts";
import { callToolAsTask } from "./tasks.ts";
import { journaledCall, type TaskJournal } from "./task-journal.ts";
import { followTask } from "./tasks-extension.ts";
import { answerInputRequests } from "./input-required.ts";
import { paramHeaderValues } from "../../wire/param-headers.ts";
import { discoveredInit, listChangeFilter, statelessCapabilities, statelessEnvelope } from "./revision-probe.ts";
import { DEPRECATED_INPUTS, statelessRequest } from "./input-required.ts";
import { ListenManager } from "./subscriptions-listen.ts";
import { ResultCache } from "./result-cache.ts";
import { Emitter, type Listener, type Unsubscribe } from "../protocol/emitter.ts";
import { RUN_ID_META_KEY } from "../protocol/meta.ts";
import { Protocol } from "../protocol/protocol.ts";
import { ToolCatalog } from "./tool-catalog.ts";
import type { RequestOptions } from "../protocol/types.ts";

export type { CallToolOptions, McpClientEvents, McpClientOptions } from "./client-options.ts";

/** A client of one MCP server. */
export class McpClient {
  readonly events: Emitter<McpClientEvents>;
  readonly runId: string;
  /** The `_meta` of a call naming no meta or run id of its own (one frozen object, not one per call). */
  private readonly runMeta: Record<string, unknown>;
  private readonly config: CapabilityConfig;
  private readonly logger: Logger;
  private readonly tools: ToolCatalog;
  private readonly subs = new Set<string>();
  private roots: Root[];
  private protocol?: Protocol;
  private init?: InitializeResult & { protocolVersion: ProtocolRevision };
  private listing?: Promise<Tool[]>;
  /** Set when the server is spoken to statelessly (2026-07-28). */
  private modern?: StatelessRevision;
  private listens?: ListenManager;
  private readonly cache = new ResultCache();
  /** Deprecated features this connection already gave notice of (once each). */
  private noticed?: Set<string>;
  /**
   * Where task-augmented calls are noted (the agent's checkpoint sets it when it is on): a call whose
   * server, run id, tool and arguments match a task started before a restart re-attaches to that task.
   */
  taskJournal?: TaskJournal;

  constructor(
    readonly clientInfo: Implementation,
    private readonly options: McpClientOptions = {},
  ) {
    this.config = options.capabilities ?? {};
    this.logger = options.logger ?? nullLogger;
    this.runId = options.runId ?? crypto.randomUUID();
    this.runMeta = Object.freeze({ [RUN_ID_META_KEY]: this.runId });
    this.roots = this.config.roots ? [...this.config.roots] : [];
    this.tools = new ToolCatalog(this.config, this.logger);
    this.events = new Emitter((event, error) => this.logger.warn("mcp.listener_error", { listener: event, error }));
    if (options.taskJournal) this.taskJournal = options.taskJournal;
  }

  /** Listen to an event; returns the unsubscribe function. */
  on<K extends keyof McpClientEvents>(event: K, listener: Listener<McpClientEvents[K]>): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** The server's implementation info (after connect). */
  get serverInfo(): Implementation | undefined {
    return this.init?.serverInfo;
  }
  /** What the server declared (`{}` before connect). */
  get serverCapabilities(): ServerCapabilities {
    return this.init?.capabilities ?? {};
  }
  /** The negotiated revision (after connect). */
  get protocolVersion(): ProtocolRevision | undefined {
    return this.init?.protocolVersion;
  }
  /** The server's instructions, if any. */
  get instructions(): string | undefined {
    return this.init?.instructions;
  }
  /** Whether the connection is up. */
  get connected(): boolean {
    return this.protocol !== undefined && !this.protocol.closed && this.init !== undefined;
  }

  /** Whether the server is spoken to statelessly (2026-07-28: no session, per-request `_meta`). */
  get stateless(): boolean {
    return this.modern !== undefined;
  }

  /** Connect over `transport`: probe the era, then (handshake servers) run initialize. Closes the transport on failure. */
  async connect(transport: Transport, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<void> {
    if (this.protocol) throw new AgentdError("E_USAGE", "McpClient.connect called twice; create a new client to reconnect");
    const protocol = new Protocol(transport, {
      logger: this.logger,
      defaultTimeoutMs: this.options.requestTimeoutMs,
      defaultMaxTotalTimeoutMs: this.options.maxTotalTimeoutMs,
      maxInflightRequests: this.options.maxInflightRequests,
      peerName: this.options.serverName === undefined ? undefined : `MCP server '${this.options.serverName}'`,
    });
    this.protocol = protocol;
    installInboundHandlers(protocol, {
      config: this.config,
      events: this.events,
      cache: this.cache,
      tools: this.tools,
      roots: () => this.roots,
      listens: () => this.listens,
    });
    protocol.events.on("close", () => this.events.emit("close"));
    try {
      await protocol.start();
      const hello = {
        clientInfo: this.clientInfo,
        capabilities: clientCapabilities(this.config),
        statelessCapabilities: statelessCapabilities(this.config),
        versionNegotiation: this.options.versionNegotiation,
        probeTimeoutMs: this.options.probeTimeoutMs ?? 10_000,
      };
      const era = await negotiateRevision(protocol, transport, hello, options);
      if (era.kind === "stateless") return await this.beginStateless(protocol, era.revision, era.discover);
      const result = era.result;
      protocol.setRevision(result.protocolVersion);
      transport.setProtocolVersion?.(result.protocolVersion);
      this.init = result;
      await protocol.notify("notifications/initialized");
      this.logger.debug("mcp.connected", { server: result.serverInfo.name, protocolVersion: result.protocolVersion });
    } catch (e) {
      await protocol.close().catch(() => {});
      throw e;
    }
  }

  /**
   * A stateless server: every request carries our version, capabilities and identity; one listen stands
   * in for subscriptions and list-change notifications (opened now when the server declared list changes).
   */
  private async beginStateless(protocol: Protocol, revision: StatelessRevision, discover: DiscoverResult): Promise<void> {
    this.modern = revision;
    protocol.setRequestMeta(statelessEnvelope(revision, statelessCapabilities(this.config), this.clientInfo));
    this.init = discoveredInit(revision, discover);
    const lists = listChangeFilter(discover.capabilities, isOn(this.config, "prompts"));
    this.listens = new ListenManager(protocol, this.logger, lists, this.options.requestTimeoutMs ?? 60_000);
    if (Object.keys(lists).length > 0) await this.listens.update([]);
    this.logger.debug("mcp.connected", { server: this.init.serverInfo.name, protocolVersion: revision, stateless: true });
  }

  /** Close the connection. Idempotent. */
  async close(): Promise<void> {
    this.listens?.close();
    // A task cancelled on the way out (a run's deadline) is told to the server before the connection goes.
    await Promise.allSettled([...this.taskCancels]);
    await this.protocol?.close();
  }

  /**
   * Send a request through the capability gate (an escape hatch for methods without a wrapper). Statelessly,
   * a fresh cached result answers a cacheable request, and input-required results are carried through
   * their rounds (`input-required.ts`).
   */
  async request<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>, options: RequestOptions = {}): Promise<T> {
    const protocol = this.gate(method);
    if (this.modern === undefined) return protocol.request<T>(method, params, options);
    const ondeprecated = (m: string) => this.deprecated(m);
    return statelessRequest<T>(protocol, method, params, options, {
      cache: this.cache,
      config: this.config,
      roots: this.roots,
      ondeprecated,
    });
  }

  /** A one-time notice that the server relies on a feature 2026-07-28 deprecates (it is still served). */
  private deprecated(method: string): void {
    const d = DEPRECATED_INPUTS[method];
    if (d === undefined || (this.noticed ??= new Set()).has(d.feature)) return;
    this.noticed.add(d.feature);
    this.logger.warn("mcp.deprecated_feature", { feature: d.feature, protocolVersion: this.modern, migration: d.migration });
  }

  /** Check the connection is alive (statelessly: `server/discover`, as 2026-07-28 has no ping). */
  async ping(options: RequestOptions = {}): Promise<void> {
    await this.request(this.modern === undefined ? "ping" : "server/discover", undefined, options);
  }

  /** Every tool the server offers (all pages), minus those the capability map makes unavailable (task-required ones while tasks are off). */
  async listTools(options: RequestOptions = {}): Promise<Tool[]> {
    const tools = await this.listAll<Tool>("tools/list", "tools", options);
    return this.tools.update(tools, this.serverCapabilities, this.modern !== undefined);
  }

  /** `tasks/cancel` requests in flight (see {@link close}). */
  private readonly taskCancels = new Set<Promise<unknown>>();

  private trackTaskCancel(sent: Promise<unknown>): void {
    this.taskCancels.add(sent);
    void sent.finally(() => this.taskCancels.delete(sent));
  }

  /** Call a tool. Tool-domain failures come back as `isError` results; protocol failures throw. */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = NO_CALL_OPTIONS): Promise<CallToolResult> {
    // The common call (handshake era, fresh catalog, no task): the protocol settles it with the checked result, no frame.
    if (this.modern === undefined && this.tools.isFresh) {
      try {
        const entry = this.tools.forCall(name);
        if (entry?.availability.offered !== true || !entry.availability.asTask) {
          // The run id goes in the params' own `_meta` (the same message; as a request option the protocol would
          // copy the params to add it). A task answer is refused here, so the options need no meta to follow one.
          const params = { name, arguments: args, _meta: toolCallMeta(options, this.runMeta, this.runId) };
          const requestOptions = toolCallLimits(options);
          return this.gate("tools/call").request<CallToolResult>("tools/call", params, requestOptions, (result) =>
            this.toolResult(name, result as CallToolResult, requestOptions),
          );
        }
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.callToolGeneral(name, args, options);
  }

  /** A tools/call's result: followed when the server made it a task, then checked against the tool's `outputSchema`. */
  private toolResult(name: string, result: CallToolResult, requestOptions: RequestOptions): CallToolResult | Promise<CallToolResult> {
    if ((result as { resultType?: unknown }).resultType !== "task") return this.tools.checkOutput(name, result);
    return this.followTask(result as unknown as Record<string, unknown>, requestOptions).then((r) => this.tools.checkOutput(name, r));
  }

  /** {@link callTool} in general: a stale catalog, a stateless server (parameter headers), a task. */
  private async callToolGeneral(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<CallToolResult> {
    if (!this.tools.isFresh) await this.refreshTools(options.signal);
    const entry = this.tools.forCall(name);
    const params = { name, arguments: args };
    const requestOptions = toolCallRequestOptions(options, this.runMeta, this.runId);
    // Stateless servers over HTTP: the tool's annotated parameters ride along as Mcp-Param-* headers.
    if (this.modern !== undefined && entry !== undefined && entry.paramHeaders.length > 0)
      requestOptions.headers = paramHeaderValues(entry.paramHeaders, args);
    const asTask = entry?.availability.offered === true && entry.availability.asTask;
    const result = asTask
      ? await callToolAsTask(this.gate("tools/call"), params, {
          ...requestOptions,
          trackCancel: (sent) => this.trackTaskCancel(sent),
          ...journaledCall(this.taskJournal, this.options.serverName, this.logger, name, args, options.runId ?? this.runId),
        })
      : await this.request<CallToolResult>("tools/call", params, requestOptions).catch((e: unknown) =>
          this.retryAfterHeaderMismatch(e, name, args, params, requestOptions),
        );
    return this.toolResult(name, result, requestOptions);
  }

  /**
   * A stateless server refused a call's headers (-32020): its tool definition may have changed, so re-list
   * and retry once with the headers the new definition asks for (transport spec, "Client Behavior": SHOULD).
   */
  private async retryAfterHeaderMismatch(
    e: unknown,
    name: string,
    args: Record<string, unknown>,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<CallToolResult> {
    if (this.modern === undefined || !McpError.isInstance(e) || e.code !== ErrorCode.HeaderMismatch) throw e;
    this.tools.invalidate();
    if (!this.tools.isFresh) await this.refreshTools(options.signal);
    const entry = this.tools.forCall(name);
    const headers = entry === undefined || entry.paramHeaders.length === 0 ? undefined : paramHeaderValues(entry.paramHeaders, args);
    const { headers: _old, ...rest } = options;
    return this.request<CallToolResult>("tools/call", params, headers === undefined ? rest : { ...rest, headers });
  }

  /** A `tools/call` the server answered with a task (tasks extension): follow it to the tool's result. */
  private followTask(created: Record<string, unknown>, options: RequestOptions): Promise<CallToolResult> {
    // Extension spec: a task the request did not declare support for is an invalid response.
    if (this.modern === undefined || !this.config.tasks)
      throw new AgentdError(
        "E_UPSTREAM",
        "the server answered tools/call with a task, which this request did not declare support for (tasks extension)",
      );
    return followTask(this.gate("tasks/get"), created, {
      ...options,
      answer: (requests, signal) => answerInputRequests(requests, this.config, this.roots, signal, (m) => this.deprecated(m)),
      trackCancel: (sent) => this.trackTaskCancel(sent),
    });
  }

  /**
   * Make sure the catalog is current before a call: it says whether the tool needs a task and which
   * outputSchema to check. Concurrent calls share one listing; a server that refuses to list is called blind.
   */
  private async refreshTools(signal: AbortSignal | undefined): Promise<void> {
    if (this.tools.isFresh || clientOutbound(this.config, this.serverCapabilities, "tools/list").kind !== "send") return;
    this.listing ??= this.listTools({ signal }).finally(() => (this.listing = undefined));
    try {
      await this.listing;
    } catch (e) {
      if (!McpError.isInstance(e)) throw e;
      this.logger.warn("mcp.tools_list_failed", { code: e.code, message: e.message });
    }
  }

  /** Every resource (all pages). */
  listResources(options: RequestOptions = {}): Promise<Resource[]> {
    return this.listAll<Resource>("resources/list", "resources", options);
  }

  /** Every resource template (all pages). */
  listResourceTemplates(options: RequestOptions = {}): Promise<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>("resources/templates/list", "resourceTemplates", options);
  }

  /** Read a resource. Unknown URIs reject with `McpError` -32002. */
  readResource(uri: string, options: RequestOptions = {}): Promise<ReadResourceResult> {
    return this.request<ReadResourceResult>("resources/read", { uri }, options);
  }

  /**
   * Subscribe to updates of `uri` (kept in {@link subscriptions} for re-subscription after a reconnect).
   * Statelessly it resolves once the server acknowledged a listen holding `uri`.
   */
  async subscribe(uri: string, options: RequestOptions = {}): Promise<void> {
    if (this.listens !== undefined) {
      this.gate("resources/subscribe");
      await this.listens.update(this.subs.has(uri) ? [...this.subs] : [...this.subs, uri]);
    } else await this.request("resources/subscribe", { uri }, options);
    this.subs.add(uri);
  }

  /** Unsubscribe from `uri`. */
  async unsubscribe(uri: string, options: RequestOptions = {}): Promise<void> {
    if (this.listens !== undefined) {
      this.gate("resources/unsubscribe");
      await this.listens.update([...this.subs].filter((u) => u !== uri));
    } else await this.request("resources/unsubscribe", { uri }, options);
    this.subs.delete(uri);
  }

  /** The URIs currently subscribed to. */
  subscriptions(): string[] {
    return [...this.subs];
  }

  /** Whether `uri` is subscribed to (without copying {@link subscriptions}: agents hold thousands). */
  isSubscribed(uri: string): boolean {
    return this.subs.has(uri);
  }

  /** Every prompt (all pages). Needs `capabilities.prompts`. */
  listPrompts(options: RequestOptions = {}): Promise<Prompt[]> {
    return this.listAll<Prompt>("prompts/list", "prompts", options);
  }

  /** Get a prompt with its arguments. Needs `capabilities.prompts`. */
  getPrompt(name: string, args?: Record<string, string>, options: RequestOptions = {}): Promise<GetPromptResult> {
    return this.request<GetPromptResult>("prompts/get", args ? { name, arguments: args } : { name }, options);
  }

  /** Ask for argument completions. Needs `capabilities.completion`. */
  complete(params: CompleteRequestParams, options: RequestOptions = {}): Promise<CompleteResult> {
    return this.request<CompleteResult>("completion/complete", params, options);
  }

  /**
   * Set the minimum level of `notifications/message` the server sends. Statelessly (2026-07-28) the level
   * travels in the `_meta` of every later request instead.
   */
  async setLoggingLevel(level: LoggingLevel, options: RequestOptions = {}): Promise<void> {
    if (this.modern === undefined) {
      await this.request("logging/setLevel", { level }, options);
      return;
    }
    this.gate("logging/setLevel");
    this.protocol?.setRequestMeta(statelessEnvelope(this.modern, statelessCapabilities(this.config), this.clientInfo, level));
  }

  /** Replace the roots (roots on) and tell the server they changed (statelessly there is no such notification: the next input request sees them). */
  async setRoots(roots: Root[]): Promise<void> {
    if (!this.config.roots) throw new AgentdError("E_CAPABILITY", "roots are off; enable capabilities.roots to expose roots");
    this.roots = [...roots];
    if (this.connected && this.modern === undefined) await this.protocol?.notify("notifications/roots/list_changed");
  }

  private live(method: string): Protocol {
    if (!this.protocol) throw new AgentdError("E_USAGE", `cannot send ${method}: the client is not connected (call connect first)`);
    if (this.protocol.closed)
      throw new AgentdError("E_CONNECTION_CLOSED", `cannot send ${method}: connection is closed`, { retryable: true });
    return this.protocol;
  }

  /** The capability map's verdict on sending `method`; throws `E_CAPABILITY` when refused. */
  private gate(method: string): Protocol {
    const protocol = this.live(method);
    const decision = clientOutbound(this.config, this.serverCapabilities, method);
    if (decision.kind === "refuse") throw new AgentdError("E_CAPABILITY", decision.reason);
    return protocol;
  }

  /** Every page of a list, or none when the capability map says the server has nothing to list. */
  private async listAll<T>(method: string, key: string, options: RequestOptions): Promise<T[]> {
    this.live(method);
    const decision = clientOutbound(this.config, this.serverCapabilities, method);
    if (decision.kind === "empty") return [];
    return collectPages<T>(method, key, (params) => this.request<Record<string, unknown>>(method, params, options));
  }
}
