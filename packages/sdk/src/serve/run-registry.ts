/**
 * The agent's observable state: which runs are in flight, what finished, usage so far. The self-MCP
 * exposes it as `agent://status` and `agent://runs/{runId}`; every change notifies subscribers.
 */
import { addUsage, emptyUsage, type Usage } from "../loop/model.ts";

/** One run as the outside sees it. */
export interface RunRecord {
  runId: string;
  status: "running" | "succeeded" | "failed";
  instruction: string;
  startedAt: string;
  endedAt?: string;
  turns: number;
  toolCalls: number;
  usage: Usage;
  /** Present when succeeded. */
  result?: { text?: string; output?: unknown; stopReason: string };
  /** Present when failed: the error code and message. */
  error?: { code: string; message: string };
}

/** The agent as a whole. */
export interface AgentStatus {
  state: "idle" | "running";
  running: string[];
  runsStarted: number;
  runsSucceeded: number;
  runsFailed: number;
  usage: Usage;
  startedAt: string;
}

/** Keeps run records (bounded history) and reports changes. */
export class RunRegistry {
  private readonly runs = new Map<string, RunRecord>();
  private readonly startedAt = new Date().toISOString();
  private counts = { started: 0, succeeded: 0, failed: 0 };
  private usage: Usage = emptyUsage();
  private readonly listeners = new Set<(runId: string | undefined) => void>();

  constructor(private readonly maxHistory = 100) {}

  /** Called with the run id that changed (and always for status). */
  onChange(listener: (runId: string | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(runId: string): void {
    for (const l of this.listeners) l(runId);
  }

  /** Whether a run id is known (running or in history). */
  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  get(runId: string): RunRecord | undefined {
    return this.runs.get(runId);
  }

  start(runId: string, instruction: string): RunRecord {
    const record: RunRecord = {
      runId,
      status: "running",
      instruction: instruction.length > 500 ? `${instruction.slice(0, 500)}…` : instruction,
      startedAt: new Date().toISOString(),
      turns: 0,
      toolCalls: 0,
      usage: emptyUsage(),
    };
    this.runs.set(runId, record);
    this.counts.started++;
    this.trim();
    this.changed(runId);
    return record;
  }

  /** Record progress of a running run (a model turn, a tool call). */
  progress(runId: string, update: { turns?: number; toolCalls?: number; usage?: Usage }): void {
    const r = this.runs.get(runId);
    if (!r || r.status !== "running") return;
    if (update.turns !== undefined) r.turns = update.turns;
    if (update.toolCalls !== undefined) r.toolCalls = update.toolCalls;
    if (update.usage) r.usage = update.usage;
    this.changed(runId);
  }

  succeed(runId: string, result: { text?: string; output?: unknown; stopReason: string; usage: Usage; turns: number; toolCalls: number }): void {
    const r = this.runs.get(runId);
    if (!r) return;
    Object.assign(r, { status: "succeeded", endedAt: new Date().toISOString(), usage: result.usage, turns: result.turns, toolCalls: result.toolCalls });
    r.result = { stopReason: result.stopReason, ...(result.text !== undefined ? { text: result.text } : {}), ...(result.output !== undefined ? { output: result.output } : {}) };
    this.counts.succeeded++;
    this.usage = addUsage(this.usage, result.usage);
    this.changed(runId);
  }

  fail(runId: string, error: { code: string; message: string }, usage?: Usage): void {
    const r = this.runs.get(runId);
    if (!r) return;
    Object.assign(r, { status: "failed", endedAt: new Date().toISOString(), error });
    if (usage) r.usage = usage;
    this.counts.failed++;
    this.usage = addUsage(this.usage, r.usage);
    this.changed(runId);
  }

  status(): AgentStatus {
    const running = [...this.runs.values()].filter((r) => r.status === "running").map((r) => r.runId);
    const live = [...this.runs.values()].filter((r) => r.status === "running").reduce((u, r) => addUsage(u, r.usage), emptyUsage());
    return {
      state: running.length > 0 ? "running" : "idle",
      running,
      runsStarted: this.counts.started,
      runsSucceeded: this.counts.succeeded,
      runsFailed: this.counts.failed,
      usage: addUsage(this.usage, live),
      startedAt: this.startedAt,
    };
  }

  private trim(): void {
    if (this.runs.size <= this.maxHistory) return;
    for (const [id, r] of this.runs) {
      if (this.runs.size <= this.maxHistory) break;
      if (r.status !== "running") this.runs.delete(id);
    }
  }
}
