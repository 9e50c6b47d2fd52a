/**
 * `createFakeMcpServer(spec)`: a scriptable MCP server for tests, built on the SDK's own `McpServer`.
 * Tools with fixed results, errors, delays, progress, crashes and hangs; resources a test can change while
 * a client is subscribed; prompts and completions. Every request it receives is recorded.
 *
 * ```ts
 * const fake = createFakeMcpServer({ tools: [{ name: "add", text: "{{a}}+{{b}}" }] });
 * const client = await fake.connectInMemory();
 * await client.callTool("add", { a: 1, b: 2 });
 * fake.toolCalls("add")[0].meta["agentd.dev/run-id"]; // the run id arrived
 * ```
 */
import { MemoryTransport, type Transport } from "@agentd/sdk/transport";
import { McpClient, McpServer, type McpClientOptions, type Registered, type ServerSession } from "@agentd/sdk/mcp";
import type { Implementation, Tool } from "@agentd/sdk/wire";
import type { Logger } from "@agentd/sdk";
import { checkSpec } from "./spec-check.ts";
import { Recorder, RecordingTransport } from "./recorder.ts";
import { ResourceStore } from "./resource-store.ts";
import { registerPrompt, registerTemplate } from "./register.ts";
import { toolDefinition, toolHandler, type ToolHost } from "./tool-behaviour.ts";
import type {
  FakeMcpServerSpec,
  FakeResourceContent,
  FakeToolSpec,
  RecordedCancellation,
  RecordedNotification,
  RecordedRequest,
} from "./types.ts";

/** Options of {@link createFakeMcpServer}. */
export interface FakeMcpServerOptions {
  logger?: Logger;
  /** How a `crash` tool dies. Default: close the session's transport (the stdio bin exits the process). */
  onCrash?: (session: ServerSession, exitCode: number) => void;
}

/** Match a record by method name or predicate. */
export type RecordMatch<T> = string | ((record: T) => boolean);

/** A running fake MCP server (see {@link createFakeMcpServer}). */
export class FakeMcpServer {
  /** The SDK server underneath: register more with it, or hand it to a Streamable HTTP server. */
  readonly server: McpServer;
  private readonly recorder = new Recorder();
  private readonly store: ResourceStore;
  private readonly tools = new Map<string, Registered<Tool>>();
  private readonly host: ToolHost;

  constructor(spec: FakeMcpServerSpec = {}, options: FakeMcpServerOptions = {}) {
    checkSpec(spec, { code: true });
    const info: Implementation = { name: spec.name ?? "fake-mcp-server", version: spec.version ?? "0.0.0" };
    this.server = new McpServer(info, {
      capabilities: { prompts: true, completion: true, serverNotifications: true, ...spec.capabilities },
      instructions: spec.instructions,
      pageSize: spec.pageSize,
      logger: options.logger,
    });
    const onCrash = options.onCrash ?? ((session) => void session.close().catch(() => {}));
    this.host = {
      interrupted: (session, ctx) => this.recorder.interrupted(session.id, ctx.requestId),
      crash: onCrash,
    };
    this.store = new ResourceStore(this.server);
    for (const tool of spec.tools ?? []) this.addTool(tool);
    for (const resource of spec.resources ?? []) this.store.add(resource);
    for (const template of spec.resourceTemplates ?? []) registerTemplate(this.server, template);
    for (const prompt of spec.prompts ?? []) registerPrompt(this.server, prompt);
  }

  /** Every request received, in order, across sessions. */
  get requests(): readonly RecordedRequest[] {
    return this.recorder.requests;
  }
  /** Every notification received. */
  get notifications(): readonly RecordedNotification[] {
    return this.recorder.notifications;
  }
  /** Every `notifications/cancelled` received. */
  get cancellations(): readonly RecordedCancellation[] {
    return this.recorder.cancellations;
  }
  /** Called with each request as it arrives. */
  set onrequest(listener: ((request: RecordedRequest) => void) | undefined) {
    this.recorder.onrequest = listener;
  }

  /** The requests of one method. */
  requestsOf(method: string): RecordedRequest[] {
    return this.recorder.requests.filter((r) => r.method === method);
  }

  /** The `tools/call` requests (of one tool, if named). */
  toolCalls(name?: string): RecordedRequest[] {
    return this.requestsOf("tools/call").filter((r) => name === undefined || r.params.name === name);
  }

  /** Wait for a request (by method, or predicate); resolves at once if one was already received. */
  waitForRequest(match: RecordMatch<RecordedRequest>, timeoutMs?: number): Promise<RecordedRequest> {
    return this.recorder.waitFor(this.recorder.requests, match, `request matching ${describe(match)}`, timeoutMs);
  }

  /** Wait for a cancellation (any, or matching); `interrupted` may still flip to true just after. */
  waitForCancellation(match?: (c: RecordedCancellation) => boolean, timeoutMs?: number): Promise<RecordedCancellation> {
    return this.recorder.waitFor(this.recorder.cancellations, match, "cancellation", timeoutMs);
  }

  /** Serve one client over `transport` (stdio, HTTP session, memory). */
  connect(transport: Transport): Promise<ServerSession> {
    return this.server.connect(new RecordingTransport(transport, this.recorder));
  }

  /** Connect a new in-memory pair; returns the client end, already served. */
  async connectTransport(): Promise<Transport> {
    const [clientEnd, serverEnd] = MemoryTransport.createPair();
    await this.connect(serverEnd);
    return clientEnd;
  }

  /** An `McpClient` connected in memory (initialize done). Close it, or the server, when done. */
  async connectInMemory(options: McpClientOptions & { clientInfo?: Implementation } = {}): Promise<McpClient> {
    const { clientInfo, ...rest } = options;
    const client = new McpClient(clientInfo ?? { name: "testkit-client", version: "0.0.0" }, rest);
    await client.connect(await this.connectTransport());
    return client;
  }

  /**
   * Set a resource's content (adding the resource if new, which emits `resources/list_changed`) and send
   * `notifications/resources/updated` to every subscribed session. Resolves with how many were notified.
   */
  async setResource(uri: string, content: FakeResourceContent): Promise<number> {
    this.store.set(uri, content);
    const subscribed = this.server.sessions().filter((s) => s.subscriptions.has(uri) && !s.closed).length;
    await this.server.notifyResourceUpdated(uri);
    return subscribed;
  }

  /** Remove a resource (emits `resources/list_changed`). */
  removeResource(uri: string): void {
    this.store.remove(uri);
  }

  /**
   * Add (or replace) a tool at run time (emits `tools/list_changed`). A session that connected while the
   * server had no tools was not told `tools` exists, so it hears nothing: give the spec one tool up front.
   */
  addTool(spec: FakeToolSpec): void {
    checkSpec({ tools: [spec] }, { code: true });
    this.tools.get(spec.name)?.remove();
    this.tools.set(spec.name, this.server.tool(toolDefinition(spec), toolHandler(spec, this.host)));
  }

  /** Remove a tool (emits `tools/list_changed`). */
  removeTool(name: string): void {
    this.tools.get(name)?.remove();
    this.tools.delete(name);
  }

  /** Close every session. */
  close(): Promise<void> {
    return this.server.close();
  }
}

/**
 * Create a fake MCP server from a spec (see {@link FakeMcpServerSpec}). Throws one line on a bad spec.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/testkit.examples.ts#createFakeMcpServer}
 */
export function createFakeMcpServer(spec: FakeMcpServerSpec = {}, options: FakeMcpServerOptions = {}): FakeMcpServer {
  return new FakeMcpServer(spec, options);
}

function describe<T>(match: RecordMatch<T>): string {
  return typeof match === "string" ? JSON.stringify(match) : "the predicate";
}
