/**
 * The served agent: the agent's MCP surface (agent.run, agent://status, agent://runs/{runId}, the subagent
 * tools when it has subagents) on stdio or on Streamable HTTP(S) with /healthz and /readyz, and the drain
 * that ends it: stop taking runs, let the runs in flight finish and be answered within the grace, then
 * close. Stdin's end is a drain like SIGTERM's: what was already read is answered before stdout closes.
 */
import { nullLogger, type Logger } from "../../log.ts";
import type { McpServer } from "../../mcp/server/server.ts";
import { createServedMcp, type ServedMcp, type ServedMcpOptions } from "../../serve/served-mcp.ts";
import type { RunRegistry } from "../../serve/run-registry.ts";
import { createStreamableHttpServer } from "../../transport/http-server/server.ts";
import { StdioServerTransport } from "../../transport/stdio-self.ts";
import { setLongTimeout } from "../../_internal/timer.ts";
import { AgentdError, McpError } from "../../wire/errors.ts";
import { ErrorCode } from "../../wire/jsonrpc.ts";
import { createA2aEndpoint, type A2aRunWaits, type A2aServeOptions } from "../../a2a/server/index.ts";
import type { OperatorControl } from "../../a2a/server/operator.ts";
import { DEFAULT_HTTP_LIMITS } from "../../transport/http-server/options.ts";
import { createMcpAuthorizer } from "../../serve/permissions.ts";
import { ServeMetrics } from "../../serve/serve-metrics.ts";
import { metricsMount, type MetricsEndpointOptions } from "../../serve/metrics-endpoint.ts";
import type { A2aTasks } from "../../a2a/server/tasks.ts";
import type { ConsoleFacts } from "../console/console-facts.ts";
import { CONSOLE_PATH, createConsoleMount, type ConsoleMount } from "../console/console-mount.ts";

export type { HttpServeOptions, ServeOptions, ServedEndpoint } from "../types/serve-options.ts";
import type { HttpServeOptions, ServeOptions, ServedEndpoint } from "../types/serve-options.ts";

/** What {@link ServedAgent} needs from the agent. */
export interface ServedAgentOptions extends Omit<ServedMcpOptions, "runner"> {
  runner: ServedMcpOptions["runner"];
  /** Whether the agent has a model and its required servers connect (for /readyz). */
  ready: () => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** What the A2A operator channel may do to the agent (drain, cancel, triggers, reload). */
  control?: OperatorControl;
  /** What the console shows besides the runs (lifecycle, servers, subagents); the console needs it. */
  console?: ConsoleFacts;
  /** With an approval desk: an A2A task whose run waits for approval waits saved (a2a-run-waits.ts). */
  a2aRunWaits?: A2aRunWaits;
  logger?: Logger;
}

/** The served agent: the agent's MCP server and every endpoint it is served on. */
export class ServedAgent {
  readonly mcp: ServedMcp;
  /** The agent's metrics (runs, tokens, cost, latency, tools, trigger lag, sessions), served at `/metrics` when asked. */
  readonly metrics: ServeMetrics;
  private readonly closers: Array<() => Promise<void>> = [];
  private draining = false;
  private readonly logger: Logger;

  constructor(private readonly options: ServedAgentOptions) {
    const { ready: _ready, logger: _logger, control: _control, console: _console, ...mcpOptions } = options;
    this.mcp = createServedMcp(mcpOptions);
    this.metrics = new ServeMetrics(this.mcp.registry);
    this.logger = options.logger ?? nullLogger;
  }

  /** The run registry: runs started over MCP (and triggered runs while serving). */
  get registry(): RunRegistry {
    return this.mcp.registry;
  }

  /** Serve on stdio or HTTP. */
  async serve(options: ServeOptions): Promise<ServedEndpoint> {
    if (this.draining) throw new AgentdError("E_USAGE", "the agent is draining: it serves no new endpoint");
    if ("http" in options)
      return this.serveHttp(
        options.http,
        options.a2a === true ? {} : options.a2a || undefined,
        options.metrics === true ? {} : options.metrics,
        options.console === true ? {} : options.console || undefined,
      );
    const stdio = options.stdio === true ? {} : options.stdio;
    const transport = new StdioServerTransport({ ...stdio, onInputEnd: "half-close" });
    const inputEnded = new Promise<void>((resolve) => (transport.oninputend = resolve));
    const session = await this.mcp.server.connect(transport);
    this.logger.info("serve.stdio", {});
    this.closers.push(() => transport.close());
    const closed = new Promise<void>((resolve) => (session.closed ? resolve() : session.events.on("close", () => resolve())));
    return { ended: Promise.race([inputEnded, closed]).then(() => "stdin-closed" as const) };
  }

  private async serveHttp(
    http: HttpServeOptions,
    a2aOptions?: A2aServeOptions,
    metrics?: MetricsEndpointOptions,
    withConsole?: { traceUrl?: string },
  ): Promise<ServedEndpoint> {
    const readyz = async () => {
      if (this.draining) return new Response("draining\n", { status: 503 });
      const r = await this.options.ready();
      return r.ok ? new Response("ready\n", { status: 200 }) : new Response(`${r.reason}\n`, { status: 503 });
    };
    const a2a = a2aOptions ? this.a2aEndpoint(http, a2aOptions) : undefined;
    // A token is typed into the page for bearer and JWT auth; a client certificate (mTLS) needs nothing typed.
    const authRequired = Boolean(http.auth?.bearerTokens?.length || http.auth?.jwt?.length);
    const consoleMount = withConsole ? this.consoleMount(a2a?.tasks, authRequired, withConsole.traceUrl) : undefined;
    const mounts = [
      ...(a2a ? [a2a.mount] : []),
      ...(consoleMount ? [consoleMount] : []),
      ...(metrics ? [metricsMount(this.metrics, metrics, new Set(this.options.operators ?? []))] : []),
    ];
    const server = await createStreamableHttpServer({
      ...http,
      mounts: mounts.length ? mounts : undefined,
      onsession: async (transport) => {
        await this.mcp.server.connect(transport);
      },
      checkHeaders: (message, headers) => this.mcp.server.paramHeaderMismatch(message, headers),
      routes: { "/healthz": () => new Response("ok\n"), "/readyz": readyz },
      logger: this.logger,
      // What each principal may do (run, read status, operator), checked on every MCP request.
      authorize: createMcpAuthorizer(new Set(this.options.operators ?? [])),
    });
    a2a?.setOrigin(new URL(http.publicUrl ?? server.url.href).origin);
    this.metrics.countSessions(() => server.stats().sessions);
    const origin = new URL(http.publicUrl ?? server.url.href).origin;
    this.logger.info("serve.listening", {
      url: server.url.href,
      tls: Boolean(http.tls),
      authMethod: authMethodOf(http),
      behindProxy: http.behindProxy?.trustedProxies,
      a2a: a2a ? `${origin}/a2a` : undefined,
      console: consoleMount ? `${origin}${CONSOLE_PATH}` : undefined,
      metrics: metrics ? (metrics.token ? "token" : "operators") : undefined,
    });
    this.closers.push(async () => {
      consoleMount?.close();
      await server.close();
    });
    return { url: server.url, ended: new Promise(() => {}) };
  }

  /** The A2A endpoint beside MCP on this listener: the same runs, registry, operators and limits. */
  private a2aEndpoint(http: HttpServeOptions, a2aOptions: A2aServeOptions): ReturnType<typeof createA2aEndpoint> {
    return createA2aEndpoint({
      ...a2aOptions,
      runner: this.options.runner,
      registry: this.mcp.registry,
      operators: new Set(this.options.operators ?? []),
      triggers: this.options.triggers,
      control: this.options.control,
      prompts: this.mcp.prompts ? () => this.mcp.prompts?.all() ?? {} : undefined,
      servedRuns: this.options.servedRuns,
      conversations: this.options.conversations,
      approvals: this.options.approvals?.desk,
      runWaits: this.options.a2aRunWaits,
      hasOperators:
        (this.options.operators?.length ?? 0) > 0 ||
        Boolean(http.auth?.bearerTokens?.some((t) => typeof t !== "string" && t.role === "operator")) ||
        Boolean(http.auth?.jwt?.some((j) => j.operatorScope)),
      auth: {
        bearer: Boolean(http.auth?.bearerTokens?.length),
        mtls: Boolean(http.auth?.mtls || http.tls?.requireClientCert || http.behindProxy?.forwardedClientCert),
      },
      maxBodyBytes: http.limits?.maxBodyBytes ?? DEFAULT_HTTP_LIMITS.maxBodyBytes,
      bodyTimeoutMs: http.limits?.requestBodyTimeoutMs ?? DEFAULT_HTTP_LIMITS.requestBodyTimeoutMs,
      maxStreamsPerPrincipal: http.limits?.maxA2aStreamsPerPrincipal ?? DEFAULT_HTTP_LIMITS.maxA2aStreamsPerPrincipal,
      logger: this.logger,
    });
  }

  /** The console on this host's registry and operator controls; A2A tasks when A2A is served beside it. */
  private consoleMount(tasks: A2aTasks | undefined, authRequired: boolean, traceUrl: string | undefined): ConsoleMount {
    const facts = this.options.console;
    if (!facts) throw new AgentdError("E_USAGE", "the console needs the agent's facts: serve the agent with createAgent to have one");
    return createConsoleMount({
      registry: this.mcp.registry,
      facts,
      operators: new Set(this.options.operators ?? []),
      authRequired,
      traceUrl: traceUrl || undefined,
      mcpTasks: () => this.mcp.tasks?.views() ?? [],
      // An operator's answer to a task's elicitation goes the way an A2A follow-up message goes.
      a2aSend: tasks ? (who, message) => tasks.send(who, message) : undefined,
      // The approval desk: its questions are listed on the Questions page and decided there by operators.
      approvals: this.options.approvals?.desk,
      runner: this.options.runner,
      operator: {
        tasks: tasks ?? {
          unfinished: () => [],
          cancel: () => {
            throw new AgentdError("E_USAGE", "no A2A task is served");
          },
        },
        triggers: this.options.triggers,
        control: this.options.control,
      },
      logger: this.logger,
    });
  }

  /** Stop taking runs over MCP (`agent.run` answers that agentd is shutting down). */
  stopTaking(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Wait (until `deadline`, epoch ms) for served runs to finish and every answer to be sent. */
  async settle(deadline: number): Promise<void> {
    const registry = this.mcp.registry;
    while (registry.status().state === "running" && Date.now() < deadline) await waitForChange(registry, deadline - Date.now());
    await answersSent(this.mcp.server, deadline);
  }

  /**
   * The grace is over: answer every MCP request still in flight, on every endpoint, with a JSON-RPC error
   * (-32000) carrying `message` — before its run is cancelled and the endpoint closes, so no caller is left
   * without a final answer. (A2A requests answer through their tasks, which end canceled.)
   */
  interrupt(message: string): void {
    const error = new McpError(ErrorCode.ConnectionClosed, message);
    for (const s of this.mcp.server.sessions()) s.protocol.answerInFlight(error);
  }

  /** Close every endpoint. */
  async close(): Promise<void> {
    const closers = this.closers.splice(0);
    await Promise.all(closers.map((c) => c().catch(() => {})));
    // The fleet's run history: its last writes finish (bounded) before its store connection is released.
    await this.mcp.registry.shared?.close().catch(() => {});
  }
}

/** How the HTTP endpoint authenticates, as its `serve.listening` record says. */
function authMethodOf(http: HttpServeOptions): "bearer+mtls" | "bearer" | "mtls" | "jwt" | "none" {
  const mtls = Boolean(http.auth?.mtls || http.behindProxy?.forwardedClientCert);
  const bearer = Boolean(http.auth?.bearerTokens?.length);
  if (bearer) return mtls ? "bearer+mtls" : "bearer";
  if (mtls) return "mtls";
  return http.auth?.jwt?.length ? "jwt" : "none";
}

/**
 * Wait until every inbound request has been answered (a run recorded as finished still has its tools/call
 * response to send): closing the endpoint first would end its stream without the answer.
 */
async function answersSent(server: McpServer, deadline: number): Promise<void> {
  const inflight = () => server.sessions().reduce((n, s) => n + s.protocol.load.inbound, 0);
  while (inflight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  // A handler that just returned has its response written from a microtask: one turn of the loop sends it.
  await new Promise((r) => setImmediate(r));
}

/** Resolve on the registry's next change, or after `ms`. */
function waitForChange(registry: RunRegistry, ms: number): Promise<void> {
  return new Promise((resolve) => {
    // A long grace must not overflow setTimeout (it would fire every 1 ms and spin the drain loop).
    const cancelTimer = setLongTimeout(done, ms);
    const off = registry.onChange(done);
    function done() {
      cancelTimer();
      off();
      resolve();
    }
  });
}
