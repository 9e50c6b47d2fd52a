/**
 * The OpenAI-compatible `/chat/completions` wire shapes: what we send (strict) and what we read
 * (lenient: vLLM, Ollama, LM Studio and hosted gateways each leave out different fields, send `null`
 * for ids, or put usage on a different chunk).
 */
import { arr, num, obj, str } from "../_internal/lenient.ts";

/** A tool call as sent back in an assistant message. */
export interface OpenAICompatibleToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A request message. */
export type OpenAICompatibleMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: OpenAICompatibleToolCall[];
      /** Reasoning passed back, for servers whose rule wants it (configured per model). */
      reasoning_content?: string;
      reasoning?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

/** The request body. */
export interface OpenAICompatibleChatRequest {
  model: string;
  messages: OpenAICompatibleMessage[];
  tools?: Array<{ type: "function"; function: { name: string; description?: string; parameters: Record<string, unknown> } }>;
  tool_choice?: "auto" | "none" | "required" | { type: "function"; function: { name: string } };
  max_tokens?: number;
  temperature?: number;
  stop?: string[];
  response_format?:
    | { type: "json_object" }
    | { type: "json_schema"; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } };
  stream?: boolean;
  stream_options?: { include_usage: boolean };
  reasoning_effort?: string;
}

/** Token counts as the wire reports them (any may be missing). */
export interface OpenAICompatibleUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  /** `prompt_tokens_details.cached_tokens` (OpenAI, vLLM) or DeepSeek's `prompt_cache_hit_tokens`. */
  cached_tokens?: number;
  /** `completion_tokens_details.reasoning_tokens`. */
  reasoning_tokens?: number;
}

/** A tool call in a whole response. `arguments` is normally a JSON string; some gateways send an object. */
export interface ReadToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/** What we read from a whole response. */
export interface ReadChatResponse {
  model?: string;
  text: string;
  /** `reasoning_content` (vLLM, DeepSeek) or `reasoning` (Ollama, OpenRouter) of the message. */
  reasoning: string;
  toolCalls: ReadToolCall[];
  finishReason?: string;
  usage?: OpenAICompatibleUsage;
}

/** A tool-call fragment of a stream chunk. */
export interface ReadToolCallDelta {
  index?: number;
  id?: string;
  name?: string;
  arguments?: string;
}

/** What we read from one stream chunk (the first choice only: we never ask for `n > 1`). */
export interface ReadChatChunk {
  model?: string;
  text?: string;
  /** A reasoning fragment (`reasoning_content` or `reasoning` on the delta). */
  reasoning?: string;
  toolCalls: ReadToolCallDelta[];
  finishReason?: string;
  usage?: OpenAICompatibleUsage;
  /** An error object some gateways send mid-stream instead of a chunk. */
  error?: unknown;
}

function readUsage(v: unknown): OpenAICompatibleUsage | undefined {
  if (v === null || v === undefined) return undefined;
  const u = obj(v);
  return {
    prompt_tokens: num(u.prompt_tokens),
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens),
    cached_tokens: num(obj(u.prompt_tokens_details).cached_tokens) ?? num(u.prompt_cache_hit_tokens),
    reasoning_tokens: num(obj(u.completion_tokens_details).reasoning_tokens),
  };
}

/** Reasoning text under either name servers use. */
const reasoningOf = (m: Record<string, unknown>): string | undefined => str(m.reasoning_content) ?? str(m.reasoning);

/** Read a non-streamed completion. */
export function readChatResponse(body: unknown): ReadChatResponse {
  const b = obj(body);
  const choice = obj(arr(b.choices)[0]);
  const message = obj(choice.message);
  const toolCalls = arr(message.tool_calls).map((tc) => {
    const t = obj(tc);
    const fn = obj(t.function);
    return { id: str(t.id), name: str(fn.name) ?? "", arguments: fn.arguments };
  });
  return {
    model: str(b.model),
    text: str(message.content) ?? "",
    reasoning: reasoningOf(message) ?? "",
    toolCalls: toolCalls.filter((t) => t.name !== ""),
    finishReason: str(choice.finish_reason),
    usage: readUsage(b.usage),
  };
}

/** Read one streamed chunk. */
export function readChatChunk(chunk: unknown): ReadChatChunk {
  const c = obj(chunk);
  const choice = obj(arr(c.choices)[0]);
  const delta = obj(choice.delta);
  const toolCalls = arr(delta.tool_calls).map((tc): ReadToolCallDelta => {
    const t = obj(tc);
    const fn = obj(t.function);
    const args = fn.arguments;
    return {
      index: num(t.index),
      id: str(t.id) || undefined,
      name: str(fn.name) || undefined,
      arguments: typeof args === "string" ? args : args === undefined || args === null ? undefined : JSON.stringify(args),
    };
  });
  return {
    model: str(c.model),
    text: str(delta.content),
    reasoning: reasoningOf(delta),
    toolCalls,
    finishReason: str(choice.finish_reason),
    usage: readUsage(c.usage ?? choice.usage),
    error: c.error ?? undefined,
  };
}
