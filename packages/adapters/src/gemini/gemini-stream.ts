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
  const parts = new GeminiParts(ctx);
  let usage: GeminiUsageMetadata | undefined;
  let finishReason: string | undefined;
  let blocked = false;
  let modelId: string | undefined;

  for await (const event of events) {
    const r = readGenerateContentResponse(parseChunk(ctx.provider, event, ctx.secrets));
    if (r.error !== undefined) throw streamError(ctx.provider, r.error, ctx.secrets);
    modelId = r.model ?? modelId;
    usage = r.usage ?? usage;
    for (const part of r.parts) yield* parts.read(part);
    if (r.blockReason) blocked = true;
    if (r.finishReason) finishReason = r.finishReason;
  }

  if (finishReason === undefined && !blocked) throw endedEarly(ctx.provider, ctx.secrets);
  yield* parts.endThought();
  yield* parts.endText();
  const finish: ModelStreamPart = {
    type: "finish",
    finishReason: mapGeminiFinishReason(finishReason, parts.calls > 0, blocked),
    usage: convertGeminiUsage(usage),
  };
  if (modelId) finish.modelId = modelId;
  yield finish;
}

/** The parts of one response as they stream: the open text (and its signature), the open run of thoughts, the calls. */
class GeminiParts {
  calls = 0;
  private readonly text = new TextBlock();
  private textSignature: string | undefined;
  private thought: Thought | undefined;
  private thoughts = 0;

  constructor(private readonly ctx: GeminiStreamContext) {}

  /** One part: a thought continues (or opens) the reasoning; text or a call first closes it. */
  *read(part: ReadPart): Generator<ModelStreamPart> {
    if (part.type === "text" && part.thought) return yield* this.thoughtPart(part);
    yield* this.endThought();
    if (part.type === "text") return yield* this.textPart(part);
    yield* this.endText();
    yield* this.functionCall(part);
  }

  /** A thought: ends the text, opens a reasoning part unless one is open, adds its text and signature. */
  private *thoughtPart(part: Extract<ReadPart, { type: "text" }>): Generator<ModelStreamPart> {
    yield* this.endText();
    if (!this.thought) {
      this.thought = { id: `reasoning-${this.thoughts++}`, text: "" };
      yield { type: "reasoning-start", id: this.thought.id };
    }
    if (part.text) {
      this.thought.text += part.text;
      yield { type: "reasoning-delta", id: this.thought.id, delta: part.text };
    }
    if (part.thoughtSignature) this.thought.signature = part.thoughtSignature;
  }

  /** Text: a signature closes the text it belongs to, so what follows is a part of its own. */
  private *textPart(part: Extract<ReadPart, { type: "text" }>): Generator<ModelStreamPart> {
    yield* this.text.delta(part.text);
    if (part.thoughtSignature) {
      this.textSignature = part.thoughtSignature;
      yield* this.endText();
    }
  }

  /** A function call, complete in one part: its start, its arguments in one piece, its end, and the call. */
  private *functionCall(part: Extract<ReadPart, { type: "function-call" }>): Generator<ModelStreamPart> {
    const id = toolCallIdOf(part, this.ctx);
    const args = JSON.stringify(part.args ?? {});
    this.calls++;
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

  /** Close the open run of thoughts: its end and the reasoning part with its signature. */
  *endThought(): Generator<ModelStreamPart> {
    if (!this.thought) return;
    const { id, text: reasoning, signature } = this.thought;
    this.thought = undefined;
    yield { type: "reasoning-end", id };
    yield { type: "reasoning", provider: this.ctx.provider, text: reasoning, signature: signature || undefined };
  }

  /** Close the open text, with the signature that came on its last part. */
  *endText(): Generator<ModelStreamPart> {
    yield* this.text.end(this.textSignature);
    this.textSignature = undefined;
  }
}
