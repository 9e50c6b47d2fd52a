/**
 * Anthropic Messages API wire shapes (`POST /v1/messages`, `anthropic-version: 2023-06-01`): what we send
 * (strict) and lenient readers for what comes back, whole or as stream events.
 */
import { arr, num, obj, str } from "../_internal/lenient.ts";

/** A prompt-cache breakpoint: everything up to and including the block carrying it is cached. */
export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** A content block we send. Thinking blocks go back exactly as they came (signature included). */
export type AnthropicContentBlock =
  | { type: "text"; text: string; cache_control?: AnthropicCacheControl }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; cache_control?: AnthropicCacheControl }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean; cache_control?: AnthropicCacheControl }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** The `thinking` request parameter. */
export type AnthropicThinking = { type: "enabled"; budget_tokens: number } | { type: "adaptive" } | { type: "disabled" };

/** A tool definition we send. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  cache_control?: AnthropicCacheControl;
}

/** A request message; roles alternate after merging. */
export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicContentBlock[];
}

/** The request body. */
export interface AnthropicMessagesRequest {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | Array<{ type: "text"; text: string; cache_control?: AnthropicCacheControl }>;
  tools?: AnthropicTool[];
  thinking?: AnthropicThinking;
  output_config?: { effort: string };
  tool_choice?: { type: "auto" | "any" | "none" } | { type: "tool"; name: string };
  temperature?: number;
  stop_sequences?: string[];
  stream?: boolean;
}

/** Token counts as reported; cache reads and writes are input the request consumed too. */
export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** `output_tokens_details.thinking_tokens`: the part of the output spent thinking. */
  thinking_tokens?: number;
}

/** A content block we read back (server-tool blocks are skipped). */
export type ReadBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id?: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/** What we read from a whole response. */
export interface ReadMessagesResponse {
  model?: string;
  content: ReadBlock[];
  stopReason?: string;
  usage?: AnthropicUsage;
}

/** Read usage, or undefined when absent. */
export function readUsage(v: unknown): AnthropicUsage | undefined {
  if (v === null || v === undefined) return undefined;
  const u = obj(v);
  return {
    input_tokens: num(u.input_tokens),
    output_tokens: num(u.output_tokens),
    cache_creation_input_tokens: num(u.cache_creation_input_tokens),
    cache_read_input_tokens: num(u.cache_read_input_tokens),
    thinking_tokens: num(obj(u.output_tokens_details).thinking_tokens),
  };
}

/** Read one content block (`content_block_start` carries the same shape). */
export function readBlock(v: unknown): ReadBlock | undefined {
  const b = obj(v);
  if (b.type === "text") return { type: "text", text: str(b.text) ?? "" };
  if (b.type === "tool_use") return { type: "tool_use", id: str(b.id) || undefined, name: str(b.name) ?? "", input: b.input };
  if (b.type === "thinking") return { type: "thinking", thinking: str(b.thinking) ?? "", signature: str(b.signature) ?? "" };
  if (b.type === "redacted_thinking") return { type: "redacted_thinking", data: str(b.data) ?? "" };
  return undefined;
}

/** Read a non-streamed response. */
export function readMessagesResponse(body: unknown): ReadMessagesResponse {
  const b = obj(body);
  return {
    model: str(b.model),
    content: arr(b.content)
      .map(readBlock)
      .filter((x): x is ReadBlock => x !== undefined),
    stopReason: str(b.stop_reason),
    usage: readUsage(b.usage),
  };
}

/** One stream event, read by its `type` (the SSE event name repeats it). */
export type ReadStreamEvent =
  | { type: "message_start"; model?: string; usage?: AnthropicUsage }
  | { type: "content_block_start"; index: number; block?: ReadBlock }
  | { type: "content_block_delta"; index: number; text?: string; partialJson?: string; thinking?: string; signature?: string }
  | { type: "content_block_stop"; index: number }
  | { type: "message_delta"; stopReason?: string; usage?: AnthropicUsage }
  | { type: "message_stop" }
  | { type: "error"; error: unknown }
  | { type: "other" };

/** Read one stream event's data. */
export function readStreamEvent(data: unknown): ReadStreamEvent {
  const d = obj(data);
  const index = num(d.index) ?? 0;
  switch (d.type) {
    case "message_start": {
      const m = obj(d.message);
      return { type: "message_start", model: str(m.model), usage: readUsage(m.usage) };
    }
    case "content_block_start":
      return { type: "content_block_start", index, block: readBlock(d.content_block) };
    case "content_block_delta": {
      const delta = obj(d.delta);
      if (delta.type === "text_delta") return { type: "content_block_delta", index, text: str(delta.text) };
      if (delta.type === "input_json_delta") return { type: "content_block_delta", index, partialJson: str(delta.partial_json) };
      if (delta.type === "thinking_delta") return { type: "content_block_delta", index, thinking: str(delta.thinking) };
      if (delta.type === "signature_delta") return { type: "content_block_delta", index, signature: str(delta.signature) };
      return { type: "other" };
    }
    case "content_block_stop":
      return { type: "content_block_stop", index };
    case "message_delta":
      return { type: "message_delta", stopReason: str(obj(d.delta).stop_reason), usage: readUsage(d.usage) };
    case "message_stop":
      return { type: "message_stop" };
    case "error":
      return { type: "error", error: d.error ?? d };
    default:
      return { type: "other" };
  }
}
