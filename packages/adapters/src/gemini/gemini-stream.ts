/**
 * Decoding a Gemini `streamGenerateContent?alt=sse` stream: every event is a whole
 * `GenerateContentResponse` holding the next text pieces; function calls arrive complete in one chunk;
 * `finishReason` and the final `usageMetadata` come on the last chunk. There is no end marker, so a stream
 * that ends without a finish reason was cut short.
 */
import type { ModelStreamPart } from "@agentd/sdk/model";
import type { SseEvent } from "../_internal/sse.ts";
import { endedEarly, finishToolCall, parseChunk, streamError, TextBlock } from "../_internal/stream-parts.ts";
import { convertGeminiUsage } from "./convert-gemini-usage.ts";
import { type GeminiUsageMetadata, type ReadPart, readGenerateContentResponse } from "./gemini-api.ts";
import { mapGeminiFinishReason } from "./map-gemini-finish-reason.ts";

/** Hooks the model supplies: ids for calls that came without one, and where to keep thought signatures. */
export interface GeminiStreamContext {
  provider: string;
  secrets: readonly string[];
  makeId: () => string;
  rememberSignature: (toolCallId: string, signature: string) => void;
}

/** The id of a function call part: Gemini's own when it sent one, else a fresh one; its signature is kept. */
export function toolCallIdOf(part: Extract<ReadPart, { type: "function-call" }>, ctx: GeminiStreamContext): string {
  const id = part.id ?? ctx.makeId();
  if (part.thoughtSignature) ctx.rememberSignature(id, part.thoughtSignature);
  return id;
}

/** Turn the SSE events of one response into stream parts. */
export async function* decodeGeminiStream(
  events: AsyncIterable<SseEvent>,
  ctx: GeminiStreamContext,
): AsyncGenerator<ModelStreamPart> {
  const text = new TextBlock();
  let usage: GeminiUsageMetadata | undefined;
  let finishReason: string | undefined;
  let blocked = false;
  let modelId: string | undefined;
  let calls = 0;

  for await (const event of events) {
    const r = readGenerateContentResponse(parseChunk(ctx.provider, event, ctx.secrets));
    if (r.error !== undefined) throw streamError(ctx.provider, r.error, ctx.secrets);
    modelId = r.model ?? modelId;
    usage = r.usage ?? usage;
    for (const part of r.parts) {
      if (part.type === "text") {
        yield* text.delta(part.text);
        continue;
      }
      yield* text.end();
      const id = toolCallIdOf(part, ctx);
      const args = JSON.stringify(part.args ?? {});
      calls++;
      yield { type: "tool-call-start", id, toolName: part.name };
      yield { type: "tool-call-delta", id, delta: args };
      yield* finishToolCall(id, part.name, args);
    }
    if (r.blockReason) blocked = true;
    if (r.finishReason) finishReason = r.finishReason;
  }

  if (finishReason === undefined && !blocked) throw endedEarly(ctx.provider, ctx.secrets);
  yield* text.end();
  const finish: ModelStreamPart = {
    type: "finish",
    finishReason: mapGeminiFinishReason(finishReason, calls > 0, blocked),
    usage: convertGeminiUsage(usage),
  };
  if (modelId) finish.modelId = modelId;
  yield finish;
}
