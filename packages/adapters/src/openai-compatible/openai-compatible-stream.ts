/**
 * Decoding an OpenAI-compatible SSE stream into our parts. Tool-call arguments arrive as string
 * fragments keyed by `index` (the id and name only on the first fragment of each call); text and calls
 * may interleave; `finish_reason` comes on the last choice chunk, usage on a chunk of its own after it
 * (`stream_options.include_usage`), then `data: [DONE]`. Gateways vary: no usage, no `[DONE]`, empty
 * ids, whole calls in one chunk, no `index` at all. Reasoning fragments (`reasoning_content` or
 * `reasoning` on the delta) come before the answer and become one reasoning part.
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

function* endReasoning(r: { id: string; text: string }, provider: string): Generator<ModelStreamPart> {
  yield { type: "reasoning-end", id: r.id };
  yield { type: "reasoning", provider, text: r.text };
}

/** Turn the SSE events of one response into stream parts. */
export async function* decodeOpenAICompatibleStream(
  events: AsyncIterable<SseEvent>,
  provider: string,
  secrets: readonly string[],
): AsyncGenerator<ModelStreamPart> {
  const text = new TextBlock();
  let reasoning: { id: string; text: string } | undefined;
  let reasonings = 0;
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
    if (chunk.reasoning) {
      if (!reasoning) {
        reasoning = { id: `reasoning-${reasonings++}`, text: "" };
        yield { type: "reasoning-start", id: reasoning.id };
      }
      reasoning.text += chunk.reasoning;
      yield { type: "reasoning-delta", id: reasoning.id, delta: chunk.reasoning };
    }
    if (reasoning && (chunk.text || chunk.toolCalls.length > 0)) {
      yield* endReasoning(reasoning, provider);
      reasoning = undefined;
    }
    yield* text.delta(chunk.text);

    for (const delta of chunk.toolCalls) {
      // No index: a known id continues its call; a bare fragment continues the last call; else a new call.
      let found = delta.index;
      if (found === undefined && delta.id !== undefined) for (const [i, c] of calls) if (c.id === delta.id) found = i;
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
  if (reasoning) yield* endReasoning(reasoning, provider);
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
