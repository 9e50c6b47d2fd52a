/**
 * The internal language-model interface: what the agentic loop speaks, free of any provider's shape.
 * Adapters (`@agentd/adapters`) translate it to a dialect: openai-compatible, openai-responses, anthropic, gemini.
 */

/** Plain text. */
export interface TextPart {
  type: "text";
  text: string;
  /** An opaque provider signature that must go back with this part (a Gemini `thoughtSignature`). */
  signature?: string;
}

/**
 * The model's reasoning before it answered: Anthropic `thinking` / `redacted_thinking` blocks, Gemini
 * thought parts, the `reasoning_content` of OpenAI-compatible reasoning servers. It lives in the
 * conversation because providers want it back, unchanged, in the next requests of a tool-use exchange
 * (and a checkpoint or a subagent hand-off must carry it); it is never part of the answer, never shown to
 * a tool. Each adapter sends back only the parts its own provider made and drops the others.
 */
export interface ReasoningPart {
  type: "reasoning";
  /** The reasoning text ("" when redacted). */
  text: string;
  /** The provider that produced it (`LanguageModel.provider`). */
  provider: string;
  /** An opaque signature the provider checks when the part comes back (Anthropic, Gemini). */
  signature?: string;
  /**
   * Encrypted reasoning the provider returns for sending back (Anthropic `redacted_thinking.data`, OpenAI
   * Responses `encrypted_content`); opaque.
   */
  redactedData?: string;
  /** The provider's id of this reasoning item (an OpenAI Responses `rs_…` item), sent back with it. */
  itemId?: string;
}

/** The model asks for a tool call. `input` is the parsed JSON arguments (an object). */
export interface ToolCallPart {
  type: "tool-call";
  /** Provider-assigned id (synthesised by the adapter when the dialect has none, e.g. gemini). */
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  /** An opaque provider signature that must go back with this call (a Gemini `thoughtSignature`). */
  signature?: string;
}

/** What an assistant message (or a response) holds. */
export type AssistantPart = TextPart | ToolCallPart | ReasoningPart;

/** The outcome of a tool call, returned to the model. `output` is already fenced/serialised text. */
export interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: string;
  isError?: boolean;
}

/** One message of a conversation. */
export type ModelMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: AssistantPart[] }
  | { role: "tool"; content: ToolResultPart[] };

/** A tool offered to the model. `inputSchema` is a JSON Schema object. */
export interface ModelToolDefinition {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** How the model may use tools on this request. */
export type ToolChoice = "auto" | "none" | "required" | { type: "tool"; toolName: string };

/** One request to a model. */
export interface ModelRequest {
  messages: ModelMessage[];
  tools?: ModelToolDefinition[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  /** Ask for JSON output (optionally matching a JSON Schema) where the dialect supports it. */
  responseFormat?: { type: "json"; schema?: Record<string, unknown>; name?: string };
  /** Aborts the request (and any retry wait). */
  signal?: AbortSignal;
  /** Extra HTTP headers for this request only (W3C `traceparent`/`tracestate`); never override auth. */
  headers?: Record<string, string>;
  /** Told each time the adapter retries this request after a transient failure (before it waits). */
  onRetry?: (retry: ModelRetry) => void;
}

/** A retry of one model request: which one, how long the adapter waits, and why (credentials masked). */
export interface ModelRetry {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The HTTP status that failed, when there was one. */
  status?: number;
  /** What went wrong, in one line ("returned HTTP 503: overloaded", "connection refused"). */
  reason: string;
}

/** Why the model stopped. */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/**
 * Token usage of one request (or, summed, of a run). The optional counts split the two totals where the
 * provider reports it: cache reads and writes are part of `inputTokens`, reasoning is part of
 * `outputTokens` (so budgets count them once), and prices can bill each part at its own rate.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Of `inputTokens`, read from the provider's prompt cache. */
  cacheReadTokens?: number;
  /** Of `inputTokens`, written to the provider's prompt cache (Anthropic bills these at a premium). */
  cacheWriteTokens?: number;
  /** Of `outputTokens`, spent on reasoning (thinking). */
  reasoningTokens?: number;
}

/** A complete (non-streamed, or fully accumulated) model response. */
export interface ModelResponse {
  content: AssistantPart[];
  finishReason: FinishReason;
  usage: Usage;
  /** The model id the provider reports, when it does. */
  modelId?: string;
}

/** Stream parts, named noun-start / noun-delta / noun-end, then finish (STYLE.md). */
export type ModelStreamPart =
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  /** `signature`: the provider's opaque signature of this text part, to send back with it (Gemini). */
  | { type: "text-end"; id: string; signature?: string }
  | { type: "tool-call-start"; id: string; toolName: string }
  | { type: "tool-call-delta"; id: string; delta: string }
  | { type: "tool-call-end"; id: string }
  /** The complete tool call, emitted after its deltas end. */
  | ({ type: "tool-call" } & Omit<ToolCallPart, "type">)
  /** Reasoning text as it arrives (never shown as answer text). */
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  /** The complete reasoning part (signature included), emitted after its deltas end. */
  | ({ type: "reasoning" } & Omit<ReasoningPart, "type">)
  | { type: "finish"; finishReason: FinishReason; usage: Usage; modelId?: string };

/** A language model reached over some dialect. */
export interface LanguageModel {
  /** `openai-compatible`, `anthropic`, `gemini`, or a test double's name. */
  readonly provider: string;
  /** The model name sent to the provider. */
  readonly modelId: string;
  /** Whether the model calls tools natively; if false the loop uses the JSON action shape. */
  readonly supportsTools: boolean;
  /** One request, whole response. Retries transient failures internally. */
  generate(request: ModelRequest): Promise<ModelResponse>;
  /** One request, streamed. Retries only before the first part arrives. */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
}

/** Zero usage. */
export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** The optional counts of {@link Usage}. */
export const USAGE_DETAIL_KEYS = ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;

/** Sum two usages; a detail count appears when either side has it. */
export const addUsage = (a: Usage, b: Usage): Usage => {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  for (const k of USAGE_DETAIL_KEYS) if (a[k] !== undefined || b[k] !== undefined) sum[k] = (a[k] ?? 0) + (b[k] ?? 0);
  return sum;
};
