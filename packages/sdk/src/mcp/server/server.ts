/**
 * `McpServer`: a generic MCP server core with no agentd logic — agentd's served agent, the testkit's fake
 * servers and the Streamable HTTP server all build on it. It holds the registry and is shared by its
 * sessions: `connect(transport)` makes one {@link ServerSession} per client.
 *
 * What it declares comes from the capability map: tools and resources when registered; prompts,
 * completions and logging/progress (server notifications) only when switched on in `capabilities`.
 */
import type { Transport } from "../../transport/types.ts";
import type { Implementation, LoggingLevel, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from "../../wire/index.ts";
import { nullLogger, type Logger } from "../../log.ts";
import { isOn, serverCapabilities, type CapabilityConfig } from "../capabilities.ts";
import { DEFAULT_PAGE_SIZE } from "./pagination.ts";
import {
  Registry,
  type Completers,
  type ListKind,
  type PromptGetter,
  type Registered,
  type ResourceReader,
  type TemplateReader,
  type ToolDefinition,
  type ToolHandler,
  type ToolOptions,
} from "./registry.ts";
import type { SharedHandlers } from "../protocol/handler-table.ts";
import { protocolSettings, type ProtocolSettings } from "../protocol/protocol-options.ts";
import { sessionHandlers } from "./handlers.ts";
import { ServerSession } from "./session.ts";
import { TASKS_REVISION, type TaskReceiver } from "./tasks.ts";
import { isStatelessRevision } from "../../wire/codec.ts";
import { TASKS_EXTENSION } from "../../wire/schemas/tasks-extension-id.ts";
import { paramHeaderMismatch, paramHeaders, type ParamHeaders } from "../../wire/param-headers.ts";

/** Options of an {@link McpServer}. */
export interface McpServerOptions {
  /** Sent to clients in the initialize result. */
  instructions?: string;
  /** The deferred-surface switches (capability map). Default: all off. */
  capabilities?: CapabilityConfig;
  /** Items per page of every list (default 100). */
  pageSize?: number;
  logger?: Logger;
  /** Client→server requests each session handles at once. */
  maxInflightRequests?: number;
  /** Default timeout of server→client requests (ms). */
  requestTimeoutMs?: number;
  /** Task store for task-augmented `tools/call` and `tasks/*`; declared only with `capabilities.tasks` on. */
  tasks?: TaskReceiver;
}

/** An MCP server shared by all its sessions. */
export class McpServer {
  readonly registry = new Registry();
  readonly logger: Logger;
  readonly options: McpServerOptions & { pageSize: number };
  private readonly live = new Set<ServerSession>();
  private readonly changed = new Set<ListKind>();
  private readonly warned = new Set<string>();
  private handlers: SharedHandlers | undefined;
  private settings: ProtocolSettings | undefined;
  /** What sessions initializing now are told; recomputed after the registry changes. */
  private declaredNow: Readonly<ServerCapabilities> | undefined;
  /** {@link declaredNow} as a stateless revision sees it (tasks as the extension); asked on every request. */
  private statelessNow: Readonly<ServerCapabilities> | undefined;

  constructor(
    readonly serverInfo: Implementation,
    options: McpServerOptions = {},
  ) {
    this.options = { ...options, pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE };
    this.logger = options.logger ?? nullLogger;
    this.registry.events.on("changed", (kind) => {
      this.declaredNow = undefined;
      this.statelessNow = undefined;
      this.scheduleListChanged(kind);
    });
  }

  /** The capability switches in force. */
  get capabilityConfig(): CapabilityConfig {
    return this.options.capabilities ?? {};
  }

  /** Register a tool. */
  tool(definition: ToolDefinition, handler: ToolHandler, options?: ToolOptions): Registered<Tool> {
    return this.registry.addTool(definition, handler, options);
  }

  /** Register a fixed resource. */
  resource(definition: Resource, read: ResourceReader): Registered<Resource> {
    return this.registry.addResource(definition, read);
  }

  /** Register a resource template (`{var}` / `{+var}`), optionally with completers for its variables. */
  resourceTemplate(
    definition: ResourceTemplate,
    read: TemplateReader,
    options: { complete?: Completers } = {},
  ): Registered<ResourceTemplate> {
    return this.registry.addTemplate(definition, read, options.complete);
  }

  /** Register a prompt (declared only with prompts on), optionally with completers for its arguments. */
  prompt(definition: Prompt, get: PromptGetter, options: { complete?: Completers } = {}): Registered<Prompt> {
    if (!isOn(this.capabilityConfig, "prompts"))
      this.warnOnce("prompts", "prompts are off (capabilities.prompts): registered prompts are not declared");
    return this.registry.addPrompt(definition, get, options.complete);
  }

  /**
   * What a client connecting now is told. One frozen object until the registry changes, shared by the
   * sessions that initialized meanwhile.
   */
  capabilities(): Readonly<ServerCapabilities> {
    return (this.declaredNow ??= deepFreeze(
      serverCapabilities(this.capabilityConfig, { ...this.registry.features(), tasks: this.options.tasks !== undefined }),
    ));
  }

  /**
   * What a session speaking `revision` is told: {@link capabilities}, without `tasks` for any revision but
   * 2025-11-25 (older ones have no tasks); 2026-07-28 is told of the tasks extension instead, when the task
   * store can report outcomes (`tasks-extension.ts`).
   */
  capabilitiesFor(revision: string): Readonly<ServerCapabilities> {
    const caps = this.capabilities();
    if (caps.tasks === undefined || revision === TASKS_REVISION) return caps;
    if (isStatelessRevision(revision) && this.statelessNow !== undefined && this.declaredNow === caps) return this.statelessNow;
    const { tasks: _tasks, ...rest } = caps;
    if (!isStatelessRevision(revision) || this.options.tasks?.detail === undefined) return rest;
    return (this.statelessNow = deepFreeze({ ...rest, extensions: { ...rest.extensions, [TASKS_EXTENSION]: {} } }));
  }

  /**
   * What is wrong with the `Mcp-Param-*` headers of a stateless HTTP `tools/call` (the tool's `x-mcp-header`
   * annotations against its `arguments`), or undefined (transport spec, "Custom Headers from Tool Parameters").
   */
  paramHeaderMismatch(message: { method: string; params?: Record<string, unknown> }, headers: Headers): string | undefined {
    if (message.method !== "tools/call") return undefined;
    const tool = this.registry.tools.get(String(message.params?.name));
    if (tool === undefined) return undefined;
    let declared = PARAM_HEADERS.get(tool.definition);
    if (declared === undefined) PARAM_HEADERS.set(tool.definition, (declared = paramHeaders(tool.definition.inputSchema)));
    return declared.ok ? paramHeaderMismatch(declared.headers, message.params?.arguments, (name) => headers.get(name)) : undefined;
  }

  /** A task changed: each `subscriptions/listen` following it gets `notifications/tasks` with `detail()`. */
  taskChanged(taskId: string, detail: () => Record<string, unknown>): void {
    for (const s of this.live) s.taskChanged(taskId, detail);
  }

  /** The open sessions. */
  sessions(): ServerSession[] {
    return [...this.live];
  }

  /** @internal The handler table all sessions share (built on first use). */
  get sessionHandlers(): SharedHandlers {
    return (this.handlers ??= sessionHandlers(this));
  }

  /** @internal What every session's protocol peer shares: made once, so that an idle session stays small. */
  get protocolSettings(): ProtocolSettings {
    return (this.settings ??= protocolSettings({
      logger: this.logger,
      maxInflightRequests: this.options.maxInflightRequests,
      defaultTimeoutMs: this.options.requestTimeoutMs,
      shared: this.sessionHandlers,
    }));
  }

  /** @internal A session's protocol closed. */
  sessionClosed(session: ServerSession): void {
    this.live.delete(session);
  }

  /** Serve one client over `transport`; resolves once the transport is started. */
  async connect(transport: Transport): Promise<ServerSession> {
    const session = new ServerSession(this, transport);
    this.live.add(session);
    try {
      await session.start();
    } catch (e) {
      this.live.delete(session);
      throw e;
    }
    return session;
  }

  /** `notifications/resources/updated` to every session subscribed to `uri` (that `to` admits, when given). */
  async notifyResourceUpdated(uri: string, to?: (session: ServerSession) => boolean): Promise<void> {
    await Promise.all([...this.live].filter((s) => !to || to(s)).map((s) => s.resourceUpdated(uri)));
  }

  /** `notifications/message` to every session whose level admits `level` (with server notifications on) and that `to` admits, when given. */
  async log(level: LoggingLevel, data: unknown, logger?: string, to?: (session: ServerSession) => boolean): Promise<void> {
    await Promise.all([...this.live].filter((s) => !to || to(s)).map((s) => s.log(level, data, logger)));
  }

  /** Close every session (open `subscriptions/listen` requests are first ended gracefully). */
  async close(): Promise<void> {
    let ended = 0;
    for (const s of this.live) ended += s.endListens();
    // Let the listen responses reach their transports before those close (handler → reply is a few ticks).
    if (ended > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    await Promise.all([...this.live].map((s) => s.close().catch(() => {})));
  }

  /** Coalesce the changes of one tick into one list_changed per list per session. */
  private scheduleListChanged(kind: ListKind): void {
    if (this.changed.size === 0) queueMicrotask(() => this.flushListChanged());
    this.changed.add(kind);
  }

  private flushListChanged(): void {
    const kinds = [...this.changed];
    this.changed.clear();
    for (const session of this.live) for (const kind of kinds) session.listChanged(kind);
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn("mcp.capability_off", { message });
  }
}

/** Each registered tool definition's `x-mcp-header` annotations, read once. */
const PARAM_HEADERS = new WeakMap<object, ParamHeaders>();

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
