/**
 * One tool call, from the model's request to the fenced observation it gets back. Every tool-domain
 * failure — unknown tool, tool outside the scope, arguments that fail the tool's inputSchema, a tool
 * timeout, an `isError` result, a ToolSet that throws — becomes an `isError` outcome for the model to
 * read, never a crash. Only the run's own abort (deadline, caller) ends the run from here. A call the approval
 * policy holds waits here for its decision, and a denied one is refused like the others (approvals/); in a
 * run that suspends, it is not made and comes back pending (its question recorded) for the run to wait on.
 */
import { validateJsonSchema } from "../_internal/json-schema.ts";
import { setLongTimeout } from "../_internal/timer.ts";
import type { ApprovalGate } from "./approvals/approval-gate.ts";
import type { ApprovalRequest } from "./approvals/approval-types.ts";
import type { Emit } from "./events.ts";
import { LOG_PREVIEW_CHARS, maskArguments, preview, summarize } from "./events.ts";
import { fenceToolOutput } from "./fence.ts";
import type { ScopeCheck } from "./scope.ts";
import type { ToolNameMap } from "./tool-names.ts";
import type { ToolCallContext, ToolCallOutcome, ToolDescriptor, ToolSet } from "./tools.ts";
import type { RunTracer, TraceCarrier } from "./trace-context.ts";
import { raceAbort } from "./run-signal.ts";
import { type ToolProgress, toolProgressReporter } from "./tool-progress.ts";

/** What the tool calls of one run share. */
export interface ToolRuntime {
  toolSet: ToolSet;
  /** Every listed tool by qualified name, in scope or not (so an out-of-scope call is named as such). */
  byName: Map<string, ToolDescriptor>;
  names: ToolNameMap;
  inScope: ScopeCheck;
  /** The names the model was offered, for "unknown tool" hints. */
  offered: string[];
  runId: string;
  signal: AbortSignal;
  toolTimeoutMs?: number;
  emit: Emit;
  tracer?: RunTracer;
  /** Consulted before each call is made, when the run has approval rules or a tool that asks (approval-gate.ts). */
  approvals?: ApprovalGate;
}

/** A call as the model wrote it. */
export interface ToolCallRequest {
  toolCallId: string;
  /** The name the model used (provider-safe, or qualified in JSON-action mode). */
  name: string;
  input: unknown;
}

/** The outcome of a call and the fenced text the model reads. */
export interface ExecutedToolCall {
  request: ToolCallRequest;
  outcome: ToolCallOutcome;
  fenced: string;
  /** Not made: the run suspends and this call waits for the decision on this question. */
  pending?: ApprovalRequest;
}

const refuse = (text: string): ToolCallOutcome => ({ text, isError: true });
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function invoke(
  rt: ToolRuntime,
  qualified: string,
  args: Record<string, unknown>,
  toolCallId: string,
  trace: TraceCarrier | undefined,
  onprogress: (p: ToolProgress) => void,
): Promise<ToolCallOutcome> {
  // Progress is always asked for: it is what keeps a long MCP call from timing out (see tool-progress.ts).
  const ctx = (signal: AbortSignal): ToolCallContext => ({
    signal,
    runId: rt.runId,
    toolCallId,
    onprogress,
    traceContext: trace,
  });
  if (rt.toolTimeoutMs === undefined) return await raceAbort(rt.toolSet.call(qualified, args, ctx(rt.signal)), rt.signal);
  const timeout = new AbortController();
  const cancelTimer = setLongTimeout(() => timeout.abort(new Error("tool timeout")), rt.toolTimeoutMs);
  const signal = AbortSignal.any([rt.signal, timeout.signal]);
  try {
    return await raceAbort(rt.toolSet.call(qualified, args, ctx(signal)), signal);
  } catch (e) {
    if (timeout.signal.aborted && !rt.signal.aborted) return refuse(`tool ${qualified} timed out after ${rt.toolTimeoutMs} ms`);
    throw e;
  } finally {
    cancelTimer();
  }
}

/** A ToolSet that returns something malformed is a failed call, not a crash of the run. */
const normalize = (o: unknown, name: string): ToolCallOutcome => {
  if (typeof o !== "object" || o === null) return refuse(`tool "${name}" returned no result`);
  const r = o as ToolCallOutcome;
  return typeof r.text === "string" ? r : { ...r, text: String(r.text ?? ""), isError: r.isError === true };
};

/** Check and run one call. Rejects only when the run itself is aborted. */
async function outcomeOf(
  rt: ToolRuntime,
  req: ToolCallRequest,
  qualified: string | undefined,
  trace: TraceCarrier | undefined,
  onprogress: (p: ToolProgress) => void,
  turn: number,
): Promise<ToolCallOutcome | { pending: ApprovalRequest }> {
  const tool = qualified === undefined ? undefined : rt.byName.get(qualified);
  if (qualified === undefined || !tool) {
    const hint = rt.offered.length ? ` Available tools: ${rt.offered.slice(0, 50).join(", ")}.` : " No tools are available.";
    return refuse(`unknown tool "${req.name}".${hint}`);
  }
  if (!rt.inScope(qualified)) return refuse(`tool "${qualified}" is not allowed in this run (outside its scope); do not call it again`);
  const args = req.input;
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return refuse(`invalid arguments for "${qualified}": arguments must be a JSON object`);
  const valid = validateJsonSchema(tool.inputSchema, args);
  if (!valid.valid) return refuse(`invalid arguments for "${qualified}": ${valid.errors.join("; ")}`);
  // A call that needs a person's decision waits for it here; a denied one never reaches the tool.
  const denied = await rt.approvals?.check({
    toolCallId: req.toolCallId,
    turn,
    name: req.name,
    tool,
    args: args as Record<string, unknown>,
  });
  if (typeof denied === "object") return denied;
  if (denied !== undefined) return refuse(denied);
  try {
    return normalize(await invoke(rt, qualified, args as Record<string, unknown>, req.toolCallId, trace, onprogress), qualified);
  } catch (e) {
    if (rt.signal.aborted) throw e;
    return refuse(`tool "${qualified}" failed: ${message(e)}`);
  }
}

/** Run one call, emitting `tool-call-start` and `tool-call-end` (and `tool-call-progress` between). */
export async function executeToolCall(rt: ToolRuntime, req: ToolCallRequest, turn: number): Promise<ExecutedToolCall> {
  const argsJson = JSON.stringify(req.input) ?? "";
  const started = performance.now();
  const qualified = rt.names.toQualified(req.name);
  const named = { name: req.name, qualifiedName: qualified };
  rt.emit(
    {
      type: "tool-call-start",
      runId: rt.runId,
      turn,
      toolCallId: req.toolCallId,
      ...named,
      argumentsSize: argsJson.length,
      arguments: maskArguments(req.input) ?? {},
    },
    argsJson.length <= LOG_PREVIEW_CHARS && typeof req.input === "object" ? { arguments: req.input } : undefined,
  );
  const progress = toolProgressReporter(rt.emit, { runId: rt.runId, turn, toolCallId: req.toolCallId, ...named });
  let result: ToolCallOutcome | { pending: ApprovalRequest };
  try {
    result = await outcomeOf(rt, req, qualified, rt.tracer?.carrier({ kind: "tool", toolCallId: req.toolCallId }), progress.report, turn);
  } finally {
    progress.end();
  }
  const pending = "pending" in result ? result.pending : undefined;
  const outcome: ToolCallOutcome = pending ? { text: "", isError: false } : (result as ToolCallOutcome);
  const durationMs = Math.round(performance.now() - started);
  rt.emit(
    {
      type: "tool-call-end",
      runId: rt.runId,
      turn,
      toolCallId: req.toolCallId,
      ...named,
      isError: outcome.isError,
      size: outcome.text.length,
      durationMs,
      summary: pending ? "waiting for a decision" : summarize(outcome.text),
      ...(pending ? { waiting: true } : {}),
    },
    outcome.isError ? { error: preview(outcome.text) } : undefined,
  );
  if (pending) return { request: req, outcome, fenced: "", pending };
  return { request: req, outcome, fenced: fenceToolOutput(qualified ?? req.name, outcome.text, outcome.isError) };
}
