/**
 * One run's events turned into OpenTelemetry spans and metrics, after the GenAI semantic conventions
 * (`invoke_agent`, `chat`, `execute_tool`; `gen_ai.*` attributes) and the MCP conventions for tool calls
 * (a CLIENT span `tools/call {gen_ai.tool.name}` with `mcp.method.name`). Spans open and close on the
 * loop's own events, so the loop needs no tracing code beyond asking for a carrier (`RunTracer`).
 */
import { type Context, type Span, SpanKind, SpanStatusCode, ROOT_CONTEXT, trace, type Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { RunEvent } from "@agentd/sdk";
import type { RunTelemetry, TracedRun } from "@agentd/sdk/telemetry";
import type { TraceCarrier, TraceSite } from "@agentd/sdk/loop";
import type { RunInstruments } from "./run-metrics.ts";

const propagator = new W3CTraceContextPropagator();
const getter = { keys: (c: Record<string, string>) => Object.keys(c), get: (c: Record<string, string>, k: string) => c[k] };
const setter = { set: (c: Record<string, string>, k: string, v: string) => void (c[k] = v) };

/** `gen_ai.provider.name` for our adapters' names (an OpenAI-compatible gateway speaks the `openai` dialect). */
const PROVIDER: Record<string, string> = { "openai-compatible": "openai", openai: "openai", anthropic: "anthropic", gemini: "gcp.gemini" };

/** The context a caller's carrier names, or the root when there is none. */
export function contextFrom(carrier: TraceCarrier | undefined): Context {
  return carrier ? propagator.extract(ROOT_CONTEXT, { ...carrier }, getter) : ROOT_CONTEXT;
}

function carrierOf(span: Span): TraceCarrier {
  const c: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), c, setter);
  return c as unknown as TraceCarrier;
}

const sec = (ms: number) => ms / 1000;

/** `server/tool` → an MCP server's tool; a bare name (subagent tools) is not MCP. */
function toolIdentity(e: { name: string; qualifiedName?: string }): { tool: string; server?: string } {
  const q = e.qualifiedName ?? e.name;
  const slash = q.indexOf("/");
  return slash > 0 ? { tool: q.slice(slash + 1), server: q.slice(0, slash) } : { tool: q };
}

/** Records one run. */
export class RunSpans implements RunTelemetry {
  private run: Span | undefined;
  /** The firing of the trigger that started the run: from the event's time to the run's end. */
  private firing: Span | undefined;
  private runCtx: Context = ROOT_CONTEXT;
  private readonly models = new Map<number, { span?: Span; started: number }>();
  private readonly tools = new Map<string, Span>();
  private base: Record<string, string> = {};

  constructor(
    private readonly tracer: Tracer | undefined,
    private readonly metrics: RunInstruments | undefined,
    private readonly traced: TracedRun,
  ) {}

  carrier(site: TraceSite): TraceCarrier | undefined {
    const span = site.kind === "model" ? this.models.get(site.turn)?.span : this.tools.get(site.toolCallId);
    return span ? carrierOf(span) : undefined;
  }

  onEvent(e: RunEvent): void {
    switch (e.type) {
      case "run-start":
        return this.start(e);
      case "model-start": {
        const span = this.tracer?.startSpan(
          `chat ${this.base["gen_ai.request.model"]}`,
          { kind: SpanKind.CLIENT, attributes: { "gen_ai.operation.name": "chat", ...this.base, "agentd.turn": e.turn } },
          this.runCtx,
        );
        this.models.set(e.turn, { span, started: performance.now() });
        return;
      }
      case "model-end":
        return this.modelEnd(e);
      case "tool-call-start":
        return this.toolStart(e);
      case "tool-call-end":
        return this.toolEnd(e);
      case "run-end":
        return this.end(e);
      default:
        return;
    }
  }

  private start(e: Extract<RunEvent, { type: "run-start" }>): void {
    this.base = { "gen_ai.provider.name": PROVIDER[e.provider] ?? e.provider, "gen_ai.request.model": e.model };
    // A trigger's run: the firing span, from the event's time, is the run span's parent.
    const trigger = this.traced.origin.event;
    let parent = contextFrom(this.traced.traceContext);
    if (trigger) {
      this.firing = this.tracer?.startSpan(
        `trigger ${trigger.kind}`,
        {
          kind: SpanKind.INTERNAL,
          startTime: trigger.firedAt,
          attributes: { "agentd.trigger.id": trigger.id, "agentd.trigger.kind": trigger.kind, "agentd.run.id": e.runId },
        },
        parent,
      );
      if (this.firing) parent = trace.setSpan(parent, this.firing);
    }
    this.run = this.tracer?.startSpan(
      "invoke_agent agentd",
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "agentd",
          ...this.base,
          "agentd.run.id": e.runId,
          "agentd.tool.mode": e.mode,
          "agentd.tools.offered": e.tools,
          ...(trigger ? { "agentd.trigger.id": trigger.id, "agentd.trigger.kind": trigger.kind } : {}),
        },
      },
      parent,
    );
    if (this.run) this.runCtx = trace.setSpan(ROOT_CONTEXT, this.run);
    this.metrics?.active.add(1);
    if (trigger)
      this.metrics?.triggerLag.record(Math.max(0, sec(Date.now() - trigger.firedAt.getTime())), { "agentd.trigger.kind": trigger.kind });
  }

  private modelEnd(e: Extract<RunEvent, { type: "model-end" }>): void {
    const open = this.models.get(e.turn);
    this.models.delete(e.turn);
    const response = e.responseModel ? { "gen_ai.response.model": e.responseModel } : {};
    open?.span?.setAttributes({
      ...response,
      "gen_ai.usage.input_tokens": e.usage.inputTokens,
      "gen_ai.usage.output_tokens": e.usage.outputTokens,
      "gen_ai.response.finish_reasons": [e.finishReason],
    });
    open?.span?.end();
    const attrs = { "gen_ai.operation.name": "chat", ...this.base, ...response };
    if (open) this.metrics?.modelDuration.record(sec(performance.now() - open.started), attrs);
    this.metrics?.tokens.record(e.usage.inputTokens, { ...attrs, "gen_ai.token.type": "input" });
    this.metrics?.tokens.record(e.usage.outputTokens, { ...attrs, "gen_ai.token.type": "output" });
  }

  private toolStart(e: Extract<RunEvent, { type: "tool-call-start" }>): void {
    const { tool, server } = toolIdentity(e);
    const mcp = server !== undefined;
    const span = this.tracer?.startSpan(
      mcp ? `tools/call ${tool}` : `execute_tool ${tool}`,
      {
        kind: mcp ? SpanKind.CLIENT : SpanKind.INTERNAL,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": tool,
          "gen_ai.tool.call.id": e.toolCallId,
          ...(mcp ? { "mcp.method.name": "tools/call", "agentd.mcp.server": server } : {}),
        },
      },
      this.runCtx,
    );
    if (span) this.tools.set(e.toolCallId, span);
  }

  private toolEnd(e: Extract<RunEvent, { type: "tool-call-end" }>): void {
    const span = this.tools.get(e.toolCallId);
    this.tools.delete(e.toolCallId);
    if (e.isError) {
      span?.setAttribute("error.type", "tool_error");
      span?.setStatus({ code: SpanStatusCode.ERROR });
    }
    span?.end();
    const { tool, server } = toolIdentity(e);
    const attrs = { "gen_ai.tool.name": tool, ...(e.isError ? { "error.type": "tool_error" } : {}) };
    if (server !== undefined) this.metrics?.mcpDuration.record(sec(e.durationMs), { "mcp.method.name": "tools/call", ...attrs });
    else this.metrics?.toolDuration.record(sec(e.durationMs), attrs);
  }

  private end(e: Extract<RunEvent, { type: "run-end" }>): void {
    // A model request or tool call the run abandoned (deadline, upstream failure) ends with the run.
    for (const { span } of this.models.values()) if (span) this.fail(span, e.error ?? "aborted");
    for (const span of this.tools.values()) this.fail(span, e.error ?? "aborted");
    this.models.clear();
    this.tools.clear();
    const outcome = { "agentd.run.outcome": e.stopReason, ...(e.error ? { "error.type": e.error } : {}) };
    if (this.run) {
      this.run.setAttributes({
        "gen_ai.usage.input_tokens": e.usage.inputTokens,
        "gen_ai.usage.output_tokens": e.usage.outputTokens,
        "agentd.run.turns": e.turns,
        "agentd.run.tool_calls": e.toolCalls,
        ...(e.costUsd !== undefined ? { "agentd.run.cost_usd": e.costUsd } : {}),
        ...outcome,
      });
      if (e.error) this.run.setStatus({ code: SpanStatusCode.ERROR, message: e.error });
      this.run.end();
    }
    this.firing?.end();
    const m = this.metrics;
    if (!m) return;
    m.active.add(-1);
    m.runs.add(1, outcome);
    m.runDuration.record(sec(e.durationMs), outcome);
    if (e.costUsd !== undefined) m.cost.add(e.costUsd, { ...this.base });
  }

  private fail(span: Span, error: string): void {
    span.setAttribute("error.type", error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    span.end();
  }
}
