/**
 * The internal language-model interface: what the agentic loop speaks, free of any provider's shape.
 * Adapters (`@agentd/adapters`) translate it to a dialect: openai-compatible, anthropic, gemini.
 */

/** Plain text. */
export interface TextPart {
  type: "text";
  text: string;
}

/** The model asks for a tool call. `input` is the parsed JSON arguments (an object). */
export interface ToolCallPart {
  type: "tool-call";
  /** Provider-assigned id (synthesised by the adapter when the dialect has none, e.g. gemini). */
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}

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
  | { role: "assistant"; content: Array<TextPart | ToolCallPart> }
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
}

/** Why the model stopped. */
export type FinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/** Token usage of one request (or, summed, of a run). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A complete (non-streamed, or fully accumulated) model response. */
export interface ModelResponse {
  content: Array<TextPart | ToolCallPart>;
  finishReason: FinishReason;
  usage: Usage;
  /** The model id the provider reports, when it does. */
  modelId?: string;
}

/** Stream parts, named noun-start / noun-delta / noun-end, then finish (STYLE.md). */
export type ModelStreamPart =
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "tool-call-start"; id: string; toolName: string }
  | { type: "tool-call-delta"; id: string; delta: string }
  | { type: "tool-call-end"; id: string }
  /** The complete tool call, emitted after its deltas end. */
  | ({ type: "tool-call" } & Omit<ToolCallPart, "type">)
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

/** Sum two usages. */
export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});
