/**
 * One model request, whole (`generate`) or streamed (`stream`, emitting `text-delta` and
 * `reasoning-delta` events and accumulating the parts into the same response shape). Reasoning parts are
 * kept in the response (the provider wants them back) but never emitted as text; a whole response's reasoning
 * is emitted as one `reasoning-delta` a part. A streamed request reads
 * its next part only once `paced` lets it: a slow consumer of the events holds the model's stream (and,
 * through the HTTP body, the provider) instead of piling events up. Both are raced against the run's signal, so a
 * deadline or a caller's cancel interrupts a request in flight even if the model ignores its signal.
 */
import type { Emit } from "./events.ts";
import type { LanguageModel, ModelRequest, ModelResponse, ReasoningPart, TextPart, ToolCallPart } from "../model/language-model.ts";
import { emptyUsage } from "../model/language-model.ts";
import { raceAbort } from "./run-signal.ts";

/** Options of one model call. */
export interface CallModelOptions {
  stream: boolean;
  signal: AbortSignal;
  emit: Emit;
  runId: string;
  turn: number;
  /** Awaited before each stream part is read. */
  paced?: () => Promise<void>;
}

/** Send one request and return the complete response. */
export async function callModel(model: LanguageModel, request: ModelRequest, o: CallModelOptions): Promise<ModelResponse> {
  const req: ModelRequest = { ...request, signal: o.signal };
  if (!o.stream) {
    const response = await raceAbort(model.generate(req), o.signal);
    // Not streamed, the reasoning summary comes whole: one `reasoning-delta` per part, the channel a streamed
    // turn uses, so listeners and the run's timeline see it either way (still never as text).
    for (const p of response.content)
      if (p.type === "reasoning" && p.text) o.emit({ type: "reasoning-delta", runId: o.runId, turn: o.turn, delta: p.text });
    return response;
  }
  return await accumulate(model, req, o);
}

async function accumulate(model: LanguageModel, req: ModelRequest, o: CallModelOptions): Promise<ModelResponse> {
  const response: ModelResponse = { content: [], finishReason: "other", usage: emptyUsage() };
  const texts = new Map<string, TextPart>();
  const textPart = (id: string): TextPart => {
    let part = texts.get(id);
    if (!part) {
      part = { type: "text", text: "" };
      texts.set(id, part);
      response.content.push(part);
    }
    return part;
  };
  const iterator = model.stream(req)[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (o.paced) await o.paced();
      const next = await raceAbort(iterator.next(), o.signal);
      if (next.done) break;
      const part = next.value;
      switch (part.type) {
        case "text-start":
          textPart(part.id);
          break;
        case "text-delta":
          textPart(part.id).text += part.delta;
          if (part.delta) o.emit({ type: "text-delta", runId: o.runId, turn: o.turn, delta: part.delta });
          break;
        case "text-end":
          if (part.signature !== undefined) textPart(part.id).signature = part.signature;
          break;
        case "reasoning-delta":
          if (part.delta) o.emit({ type: "reasoning-delta", runId: o.runId, turn: o.turn, delta: part.delta });
          break;
        case "tool-call": {
          const { type: _t, ...call } = part;
          response.content.push({ type: "tool-call", ...call } satisfies ToolCallPart);
          break;
        }
        case "reasoning": {
          const { type: _t, ...reasoning } = part;
          response.content.push({ type: "reasoning", ...reasoning } satisfies ReasoningPart);
          break;
        }
        case "finish":
          response.finishReason = part.finishReason;
          response.usage = part.usage;
          if (part.modelId !== undefined) response.modelId = part.modelId;
          break;
        default:
          // Tool-call deltas carry nothing the complete parts do not.
          break;
      }
    }
  } catch (e) {
    // Tell the producer we are gone (closes the HTTP body); do not wait for it.
    iterator.return?.()?.catch(() => {});
    throw e;
  }
  // An empty text part is noise, unless it carries a signature the provider wants back.
  response.content = response.content.filter((p) => p.type !== "text" || p.text.length > 0 || p.signature !== undefined);
  return response;
}
