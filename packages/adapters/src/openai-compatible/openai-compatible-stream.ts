/**
 * Decoding an OpenAI-compatible SSE stream into our parts. Tool-call arguments arrive as string
 * fragments keyed by `index` (the id and name only on the first fragment of each call); text and calls
 * may interleave; `finish_reason` comes on the last choice chunk, usage on a chunk of its own after it
 * (`stream_options.include_usage`), then `data: [DONE]`. Gateways vary: no usage, no `[DONE]`, empty
 * ids, whole calls in one chunk, no `index` at all.
 */
import type { ModelStreamPart } from "@agentd/sdk/model";
import type { SseEvent } from "../_internal/sse.ts";
import { endedEarly, finishToolCall, parseChunk, streamError, TextBlock } from "../_internal/stream-parts.ts";
import { generateToolCallId } from "../_internal/tool-input.ts";
import { convertOpenAICompatibleUsage } from "./convert-openai-compatible-usage.ts";
import { mapOpenAICompatibleFinishReason } from "./map-openai-compatible-finish-reason.ts";
import { type OpenAICompatibleUsage, readChatChunk } from "./openai-compatible-api.ts";

interface PendingCall {
  id: string;
  name: string;
  args: string;
  started: boolean;
}

/** Turn the SSE events of one response into stream parts. */
export async function* decodeOpenAICompatibleStream(
  events: AsyncIterable<SseEvent>,
  provider: string,
  secrets: readonly string[],
): AsyncGenerator<ModelStreamPart> {
  const text = new TextBlock();
  const calls = new Map<number, PendingCall>();
  let lastIndex: number | undefined;
  let finishReason: string | undefined;
  let usage: OpenAICompatibleUsage | undefined;
  let modelId: string | undefined;
  let done = false;

  for await (const event of events) {
    if (event.data.trim() === "[DONE]") {
      done = true;
      break;
    }
    const chunk = readChatChunk(parseChunk(provider, event, secrets));
    if (chunk.error !== undefined) throw streamError(provider, chunk.error, secrets);
    modelId = chunk.model || modelId;
    if (chunk.usage) usage = chunk.usage;
    yield* text.delta(chunk.text);

    for (const delta of chunk.toolCalls) {
      // No index: a known id continues its call; a bare fragment continues the last call; else a new call.
      let found = delta.index;
      if (found === undefined && delta.id !== undefined)
        for (const [i, c] of calls) if (c.id === delta.id) found = i;
      const continues = delta.id === undefined && delta.name === undefined;
      const index = found ?? (continues && lastIndex !== undefined ? lastIndex : Math.max(-1, ...calls.keys()) + 1);
      lastIndex = index;
      let call = calls.get(index);
      if (!call) {
        call = { id: delta.id ?? generateToolCallId(), name: "", args: "", started: false };
        calls.set(index, call);
      }
      if (!call.name && delta.name) call.name = delta.name;
      if (delta.arguments) call.args += delta.arguments;
      if (call.started) {
        if (delta.arguments) yield { type: "tool-call-delta", id: call.id, delta: delta.arguments };
      } else if (call.name) {
        // The loop needs the name on start; fragments that came before it go out as one delta.
        call.started = true;
        yield { type: "tool-call-start", id: call.id, toolName: call.name };
        if (call.args) yield { type: "tool-call-delta", id: call.id, delta: call.args };
      }
    }
    if (chunk.finishReason) finishReason = chunk.finishReason;
  }

  if (!done && finishReason === undefined) throw endedEarly(provider, secrets);
  yield* text.end();
  let callCount = 0;
  for (const call of calls.values()) {
    if (!call.name) continue; // a fragment that never got a name is not a call
    callCount++;
    yield* finishToolCall(call.id, call.name, call.args);
  }
  let reason = mapOpenAICompatibleFinishReason(finishReason);
  if (callCount > 0 && (reason === "stop" || reason === "other")) reason = "tool-calls";
  const finish: ModelStreamPart = { type: "finish", finishReason: reason, usage: convertOpenAICompatibleUsage(usage) };
  if (modelId) finish.modelId = modelId;
  yield finish;
}
