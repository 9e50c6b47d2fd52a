/**
 * The loop's view of tools: a ToolSet that lists and calls them. `createAgent` builds one over the MCP
 * clients (qualified names `server/tool`); tests and the supervisor can supply their own.
 */
import type { Usage } from "../model/language-model.ts";
import type { NeedsApproval, ToolHints } from "./approvals/approval-types.ts";
import type { TraceCarrier } from "./trace-context.ts";

/** A tool the loop may offer the model. */
export interface ToolDescriptor {
  /** Qualified name, `server/tool` for MCP tools, or a bare name for built-in self-tools. */
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of `structuredContent`, when the tool declares one. */
  outputSchema?: Record<string, unknown>;
  /** The MCP annotations the tool's server declares (hints, not guarantees), for approval rules. */
  annotations?: ToolHints;
  /** A local tool's own demand for a person's approval before each call (`tool({ needsApproval })`). */
  needsApproval?: NeedsApproval;
}

/** Per-call context. */
export interface ToolCallContext {
  /** Aborted on deadline, budget trip or caller cancel: the tool call is cancelled upstream. */
  signal: AbortSignal;
  /** The run's idempotency id, sent in `_meta` of every MCP tools/call. */
  runId: string;
  /** The id the model gave this call (a resumed run's journal of approved calls is keyed by it). */
  toolCallId?: string;
  /** Progress reported by the tool (MCP `notifications/progress`). */
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The span this call belongs to, for MCP `_meta.traceparent` (only when telemetry is on). */
  traceContext?: TraceCarrier;
}

/** The result of one tool call as the loop sees it. Tool-domain failures are results with `isError`. */
export interface ToolCallOutcome {
  /** Text rendering of the content blocks (images etc. summarised). */
  text: string;
  isError: boolean;
  structuredContent?: Record<string, unknown>;
  /** Usage consumed by the tool itself (a subagent's model usage counts against the parent). */
  usage?: Usage;
}

/** A set of callable tools. */
export interface ToolSet {
  list(): Promise<ToolDescriptor[]>;
  /** Never throws for tool-domain failures (unknown tool, bad arguments, isError): returns `isError`. */
  call(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolCallOutcome>;
}
