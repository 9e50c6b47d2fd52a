/**
 * Decoding an Anthropic Messages SSE stream into our parts: `message_start` (model, input usage), per
 * content block `content_block_start` / `_delta` (`text_delta`, `input_json_delta` fragments of a
 * tool_use input, `thinking_delta` and `signature_delta` of a thinking block) / `_stop`, then `message_delta` (stop reason, output usage) and `message_stop`.
 * `ping` is a keep-alive; an `error` event ends the stream (`overloaded_error` is worth a retry).
 */
import type { ModelStreamPart } from "@agentd/sdk/model";
import type { SseEvent } from "../_internal/sse.ts";
import { endedEarly, finishToolCall, parseChunk, streamError, TextBlock } from "../_internal/stream-parts.ts";
import { generateToolCallId } from "../_internal/tool-input.ts";
import type { AnthropicUsage } from "./anthropic-api.ts";
import { type ReadStreamEvent, readStreamEvent } from "./anthropic-api.ts";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert-anthropic-usage.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";

type OpenBlock =
  | { kind: "text" }
  | { kind: "tool"; id: string; name: string; json: string }
  | { kind: "thinking"; id: string; text: string; signature: string }
  | { kind: "redacted"; data: string };

type Event<T extends ReadStreamEvent["type"]> = Extract<ReadStreamEvent, { type: T }>;

/** Turn the SSE events of one response into stream parts. */
export async function* decodeAnthropicStream(
  events: AsyncIterable<SseEvent>,
  provider: string,
  secrets: readonly string[],
): AsyncGenerator<ModelStreamPart> {
  const blocks = new ContentBlocks(provider);
  let usage: AnthropicUsage | undefined;
  let stopReason: string | undefined;
  let modelId: string | undefined;
  let stopped = false;

  for await (const event of events) {
    const e = readStreamEvent(parseChunk(provider, event, secrets));
    switch (e.type) {
      case "message_start":
        modelId = e.model ?? modelId;
        usage = mergeAnthropicUsage(usage, e.usage);
        break;
      case "content_block_start":
        yield* blocks.start(e);
        break;
      case "content_block_delta":
        yield* blocks.delta(e);
        break;
      case "content_block_stop":
        yield* blocks.stop(e);
        break;
      case "message_delta":
        stopReason = e.stopReason ?? stopReason;
        usage = mergeAnthropicUsage(usage, e.usage);
        break;
      case "message_stop":
        stopped = true;
        break;
      case "error": {
        const type = (e.error as { type?: unknown } | undefined)?.type;
        throw streamError(provider, e.error, secrets, type === "overloaded_error" || type === "api_error");
      }
      default:
        break;
    }
    if (stopped) break;
  }

  if (!stopped) throw endedEarly(provider, secrets);
  yield* blocks.text.end();
  let finishReason = mapAnthropicFinishReason(stopReason);
  if (blocks.sawToolCall && finishReason === "other") finishReason = "tool-calls";
  const finish: ModelStreamPart = { type: "finish", finishReason, usage: convertAnthropicUsage(usage) };
  if (modelId) finish.modelId = modelId;
  yield finish;
}

/** The content blocks of one message as they stream: open blocks by index, the text block, whether a tool was called. */
class ContentBlocks {
  readonly text = new TextBlock();
  sawToolCall = false;
  private readonly open = new Map<number, OpenBlock>();

  constructor(private readonly provider: string) {}

  /** A block starts: text (its first piece), a tool call, a thinking block (its first piece), or redacted thinking. */
  *start(e: Event<"content_block_start">): Generator<ModelStreamPart> {
    if (e.block?.type === "text") {
      this.open.set(e.index, { kind: "text" });
      yield* this.text.delta(e.block.text);
    } else if (e.block?.type === "tool_use") {
      const id = e.block.id ?? generateToolCallId();
      this.open.set(e.index, { kind: "tool", id, name: e.block.name, json: "" });
      this.sawToolCall = true;
      yield { type: "tool-call-start", id, toolName: e.block.name };
    } else if (e.block?.type === "thinking") {
      const id = `reasoning-${e.index}`;
      this.open.set(e.index, { kind: "thinking", id, text: e.block.thinking, signature: e.block.signature });
      yield { type: "reasoning-start", id };
      if (e.block.thinking) yield { type: "reasoning-delta", id, delta: e.block.thinking };
    } else if (e.block?.type === "redacted_thinking") {
      this.open.set(e.index, { kind: "redacted", data: e.block.data });
    }
  }

  /** A piece of a block: text, a fragment of a tool call's input JSON, or thinking and its signature. */
  *delta(e: Event<"content_block_delta">): Generator<ModelStreamPart> {
    const block = this.open.get(e.index);
    if (block?.kind === "text") yield* this.text.delta(e.text);
    else if (block?.kind === "tool" && e.partialJson) {
      block.json += e.partialJson;
      yield { type: "tool-call-delta", id: block.id, delta: e.partialJson };
    } else if (block?.kind === "thinking") {
      if (e.signature) block.signature += e.signature;
      if (e.thinking) {
        block.text += e.thinking;
        yield { type: "reasoning-delta", id: block.id, delta: e.thinking };
      }
    }
  }

  /** A block ends: the text's end, the complete tool call, or the reasoning part (signed, or redacted). */
  *stop(e: Event<"content_block_stop">): Generator<ModelStreamPart> {
    const block = this.open.get(e.index);
    this.open.delete(e.index);
    if (block?.kind === "text") yield* this.text.end();
    else if (block?.kind === "tool") yield* finishToolCall(block.id, block.name, block.json);
    else if (block?.kind === "thinking") {
      yield { type: "reasoning-end", id: block.id };
      yield { type: "reasoning", provider: this.provider, text: block.text, signature: block.signature };
    } else if (block?.kind === "redacted") yield { type: "reasoning", provider: this.provider, text: "", redactedData: block.data };
  }
}
