/**
 * Decoding a Gemini `streamGenerateContent?alt=sse` stream: every event is a whole
 * `GenerateContentResponse` holding the next text pieces; function calls arrive complete in one chunk;
 * `finishReason` and the final `usageMetadata` come on the last chunk. There is no end marker, so a stream
 * that ends without a finish reason was cut short. Thought parts (`thought: true`) become reasoning parts;
 * thought signatures ride on the part they came with, so they return to Gemini with the conversation.
 */
import type { ModelStreamPart } from "@agentd/sdk/model";
import type { SseEvent } from "../_internal/sse.ts";
import { endedEarly, parseChunk, streamError, TextBlock } from "../_internal/stream-parts.ts";
import { parseToolInput } from "../_internal/tool-input.ts";
import { convertGeminiUsage } from "./convert-gemini-usage.ts";
import { type GeminiUsageMetadata, type ReadPart, readGenerateContentResponse } from "./gemini-api.ts";
import { mapGeminiFinishReason } from "./map-gemini-finish-reason.ts";

/** What the model supplies: its name for errors, secrets to scrub, and ids for calls that came without one. */
export interface GeminiStreamContext {
  provider: string;
  secrets: readonly string[];
  makeId: () => string;
}

/** The id of a function call part: Gemini's own when it sent one, else a fresh one. */
export const toolCallIdOf = (part: Extract<ReadPart, { type: "function-call" }>, ctx: GeminiStreamContext): string =>
  part.id ?? ctx.makeId();

/** An open run of thought parts. */
interface Thought {
  id: string;
  text: string;
  signature?: string;
}

/** Turn the SSE events of one response into stream parts. */
export async function* decodeGeminiStream(events: AsyncIterable<SseEvent>, ctx: GeminiStreamContext): AsyncGenerator<ModelStreamPart> {
  const text = new TextBlock();
  let textSignature: string | undefined;
  let thought: Thought | undefined;
  let thoughts = 0;
  let usage: GeminiUsageMetadata | undefined;
  let finishReason: string | undefined;
  let blocked = false;
  let modelId: string | undefined;
  let calls = 0;

  function* endThought(): Generator<ModelStreamPart> {
    if (!thought) return;
    const { id, text: reasoning, signature } = thought;
    thought = undefined;
    yield { type: "reasoning-end", id };
    yield { type: "reasoning", provider: ctx.provider, text: reasoning, signature: signature || undefined };
  }
  function* endText(): Generator<ModelStreamPart> {
    yield* text.end(textSignature);
    textSignature = undefined;
  }

  for await (const event of events) {
    const r = readGenerateContentResponse(parseChunk(ctx.provider, event, ctx.secrets));
    if (r.error !== undefined) throw streamError(ctx.provider, r.error, ctx.secrets);
    modelId = r.model ?? modelId;
    usage = r.usage ?? usage;
    for (const part of r.parts) {
      if (part.type === "text" && part.thought) {
        yield* endText();
        if (!thought) {
          thought = { id: `reasoning-${thoughts++}`, text: "" };
          yield { type: "reasoning-start", id: thought.id };
        }
        if (part.text) {
          thought.text += part.text;
          yield { type: "reasoning-delta", id: thought.id, delta: part.text };
        }
        if (part.thoughtSignature) thought.signature = part.thoughtSignature;
        continue;
      }
      yield* endThought();
      if (part.type === "text") {
        // A signature closes the text it belongs to: what follows is a part of its own.
        yield* text.delta(part.text);
        if (part.thoughtSignature) {
          textSignature = part.thoughtSignature;
          yield* endText();
        }
        continue;
      }
      yield* endText();
      const id = toolCallIdOf(part, ctx);
      const args = JSON.stringify(part.args ?? {});
      calls++;
      yield { type: "tool-call-start", id, toolName: part.name };
      yield { type: "tool-call-delta", id, delta: args };
      yield { type: "tool-call-end", id };
      yield {
        type: "tool-call",
        toolCallId: id,
        toolName: part.name,
        input: parseToolInput(args),
        signature: part.thoughtSignature || undefined,
      };
    }
    if (r.blockReason) blocked = true;
    if (r.finishReason) finishReason = r.finishReason;
  }

  if (finishReason === undefined && !blocked) throw endedEarly(ctx.provider, ctx.secrets);
  yield* endThought();
  yield* endText();
  const finish: ModelStreamPart = {
    type: "finish",
    finishReason: mapGeminiFinishReason(finishReason, calls > 0, blocked),
    usage: convertGeminiUsage(usage),
  };
  if (modelId) finish.modelId = modelId;
  yield finish;
}
