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
import { readStreamEvent } from "./anthropic-api.ts";
import { convertAnthropicUsage, mergeAnthropicUsage } from "./convert-anthropic-usage.ts";
import { mapAnthropicFinishReason } from "./map-anthropic-finish-reason.ts";

type OpenBlock =
  | { kind: "text" }
  | { kind: "tool"; id: string; name: string; json: string }
  | { kind: "thinking"; id: string; text: string; signature: string }
  | { kind: "redacted"; data: string };

/** Turn the SSE events of one response into stream parts. */
export async function* decodeAnthropicStream(
  events: AsyncIterable<SseEvent>,
  provider: string,
  secrets: readonly string[],
): AsyncGenerator<ModelStreamPart> {
  const text = new TextBlock();
  const blocks = new Map<number, OpenBlock>();
  let usage: AnthropicUsage | undefined;
  let stopReason: string | undefined;
  let modelId: string | undefined;
  let sawToolCall = false;
  let stopped = false;

  for await (const event of events) {
    const e = readStreamEvent(parseChunk(provider, event, secrets));
    switch (e.type) {
      case "message_start":
        modelId = e.model ?? modelId;
        usage = mergeAnthropicUsage(usage, e.usage);
        break;
      case "content_block_start":
        if (e.block?.type === "text") {
          blocks.set(e.index, { kind: "text" });
          yield* text.delta(e.block.text);
        } else if (e.block?.type === "tool_use") {
          const id = e.block.id ?? generateToolCallId();
          blocks.set(e.index, { kind: "tool", id, name: e.block.name, json: "" });
          sawToolCall = true;
          yield { type: "tool-call-start", id, toolName: e.block.name };
        } else if (e.block?.type === "thinking") {
          const id = `reasoning-${e.index}`;
          blocks.set(e.index, { kind: "thinking", id, text: e.block.thinking, signature: e.block.signature });
          yield { type: "reasoning-start", id };
          if (e.block.thinking) yield { type: "reasoning-delta", id, delta: e.block.thinking };
        } else if (e.block?.type === "redacted_thinking") {
          blocks.set(e.index, { kind: "redacted", data: e.block.data });
        }
        break;
      case "content_block_delta": {
        const block = blocks.get(e.index);
        if (block?.kind === "text") yield* text.delta(e.text);
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
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(e.index);
        blocks.delete(e.index);
        if (block?.kind === "text") yield* text.end();
        else if (block?.kind === "tool") yield* finishToolCall(block.id, block.name, block.json);
        else if (block?.kind === "thinking") {
          yield { type: "reasoning-end", id: block.id };
          yield { type: "reasoning", provider, text: block.text, signature: block.signature };
        } else if (block?.kind === "redacted") yield { type: "reasoning", provider, text: "", redactedData: block.data };
        break;
      }
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
  yield* text.end();
  let finishReason = mapAnthropicFinishReason(stopReason);
  if (sawToolCall && finishReason === "other") finishReason = "tool-calls";
  const finish: ModelStreamPart = { type: "finish", finishReason, usage: convertAnthropicUsage(usage) };
  if (modelId) finish.modelId = modelId;
  yield finish;
}
