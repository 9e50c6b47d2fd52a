/**
 * agentd's own metrics for `/metrics`, fed by the run registry (every run it records: over MCP, A2A and
 * from triggers) and by the run events it observes: runs by outcome, tokens and cost by kind, run latency,
 * runs in flight, tool calls by outcome, trigger lag, HTTP sessions. Labels take bounded values only
 * (outcome, error code, how a run started, the MCP server of a tool), never run ids or principals.
 */
import type { RunRegistry } from "./run-registry.ts";
import { runEnded } from "./run-record.ts";
import { MetricRegistry } from "./prometheus-text.ts";

/** Upper bounds (seconds) of the latency histograms: runs take from a second to many minutes. */
export const RUN_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const LAG_SECONDS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];
const TOOL_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The metrics of a served agent. */
export class ServeMetrics {
  readonly registry = new MetricRegistry();
  private readonly lag;
  private sessions: () => number = () => 0;

  constructor(runs: RunRegistry) {
    const m = this.registry;
    const ended = m.counter(
      "agentd_runs_total",
      "Runs ended, by outcome (succeeded, failed), error code and how they started (mcp, a2a, trigger)",
    );
    const latency = m.histogram(
      "agentd_run_duration_seconds",
      "Run latency from start to end (outcomes are counted in agentd_runs_total)",
      RUN_SECONDS,
    );
    m.gauge("agentd_runs_active", "Runs in flight", () => [{ labels: {}, value: runs.status().running.length }]);
    const tokens = m.counter(
      "agentd_tokens_total",
      "Model tokens spent, by kind: input, output, cache_read and cache_write (parts of input), reasoning (part of output)",
      ["input", "output", "cache_read", "cache_write", "reasoning"].map((kind) => ({ kind })),
    );
    const cost = m.counter("agentd_cost_usd_total", "Model spend of ended runs in US dollars (needs model prices)");
    const tools = m.counter(
      "agentd_tool_calls_total",
      "Tool calls returned, by outcome (ok, error) and MCP server (local for tools that are not MCP)",
    );
    const toolTime = m.histogram("agentd_tool_call_duration_seconds", "Tool call latency, by MCP server", TOOL_SECONDS);
    this.lag = m.histogram(
      "agentd_trigger_lag_seconds",
      "From a trigger's event to the start of the run it caused, by trigger kind",
      LAG_SECONDS,
    );
    m.gauge("agentd_http_sessions", "MCP sessions open on the HTTP listener", () => [{ labels: {}, value: this.sessions() }]);
    m.gauge("agentd_uptime_seconds", "Seconds since the agent started serving", () => [
      { labels: {}, value: (Date.now() - Date.parse(runs.status().startedAt)) / 1000 },
    ]);

    runs.onRunListChange(({ record }) => {
      // A run that stops to wait for a decision has not ended: it is counted once, when it does.
      if (!record || !runEnded(record)) return;
      const labels = { outcome: record.status, code: record.error?.code ?? "", via: record.via ?? "" };
      ended.inc(labels);
      const seconds = (Date.parse(record.endedAt ?? "") - Date.parse(record.startedAt)) / 1000;
      latency.observe(seconds);
    });
    runs.onRunEvent((e) => {
      if (e.type === "model-end") {
        const u = e.usage;
        tokens.inc({ kind: "input" }, u.inputTokens);
        tokens.inc({ kind: "output" }, u.outputTokens);
        tokens.inc({ kind: "cache_read" }, u.cacheReadTokens ?? 0);
        tokens.inc({ kind: "cache_write" }, u.cacheWriteTokens ?? 0);
        tokens.inc({ kind: "reasoning" }, u.reasoningTokens ?? 0);
      } else if (e.type === "tool-call-end") {
        const slash = e.qualifiedName?.indexOf("/") ?? -1;
        const server = slash > 0 ? e.qualifiedName!.slice(0, slash) : "local";
        tools.inc({ outcome: e.isError ? "error" : "ok", server });
        toolTime.observe(e.durationMs / 1000, { server });
      } else if (e.type === "run-end" && e.costUsd !== undefined) cost.inc({}, e.costUsd);
    });
  }

  /** Count a triggered run's lag (from the trigger's event to the run's start). */
  triggerLag(kind: string, firedAt: Date, startedAt = new Date()): void {
    this.lag.observe(Math.max(0, (startedAt.getTime() - firedAt.getTime()) / 1000), { kind });
  }

  /** Where the number of open HTTP sessions is read at scrape time. */
  countSessions(read: () => number): void {
    this.sessions = read;
  }

  /** The exposition text. */
  render(): string {
    return this.registry.render();
  }
}
