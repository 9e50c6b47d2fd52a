/**
 * Decoding a Responses SSE stream into our parts. Every event names its type (`response.created`,
 * `response.output_item.added`, `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.reasoning_summary_text.delta`, `response.output_item.done`, … `response.completed`) and the
 * output item it belongs to (`output_index`, `item_id`). A reasoning item becomes one reasoning part with
 * its id and `encrypted_content` (sent back on later requests); a function call's id is its `call_id`.
 * There is no `[DONE]`: the stream is complete at `response.completed` (or `incomplete`, `failed`).
 */
import type { ModelStreamPart } from "@agentd/sdk/model";
import { obj, str, num } from "../_internal/lenient.ts";
import type { SseEvent } from "../_internal/sse.ts";
import { endedEarly, finishToolCall, parseChunk, streamError, TextBlock } from "../_internal/stream-parts.ts";
import { convertResponsesUsage } from "./convert-responses-usage.ts";
import { mapResponsesFinishReason } from "./map-responses-finish-reason.ts";
import { readOutputItem, readResponse } from "./responses-api.ts";

type Open =
  | { kind: "reasoning"; id: string; text: string; summaryIndex: number }
  | { kind: "call"; callId: string; name: string; args: string }
  | { kind: "message" };

/** Turn the SSE events of one response into stream parts; `onResponse` gets the response id when it is known. */
export async function* decodeResponsesStream(
  events: AsyncIterable<SseEvent>,
  provider: string,
  secrets: readonly string[],
  onDone?: (responseId: string | undefined) => void,
): AsyncGenerator<ModelStreamPart> {
  const decoder = new ResponsesDecoder(provider);
  for await (const event of events) {
    const chunk = obj(parseChunk(provider, event, secrets));
    const type = str(chunk.type) ?? event.event;
    const index = num(chunk.output_index) ?? -1;
    const delta = str(chunk.delta) ?? "";
    switch (type) {
      case "error":
        throw streamError(provider, { message: chunk.message, code: chunk.code }, secrets);
      case "response.failed": {
        const r = readResponse(chunk.response);
        throw streamError(provider, r.error ?? { message: "the response failed" }, secrets);
      }
      case "response.output_item.added":
        yield* decoder.itemAdded(index, chunk.item);
        break;
      case "response.reasoning_summary_text.delta":
        yield* decoder.reasoningDelta(index, delta, num(chunk.summary_index) ?? 0);
        break;
      case "response.output_text.delta":
        yield* decoder.text.delta(delta);
        break;
      case "response.function_call_arguments.delta":
        yield* decoder.argumentsDelta(index, delta);
        break;
      case "response.output_item.done":
        yield* decoder.itemDone(index, chunk.item);
        break;
      case "response.completed":
      case "response.incomplete": {
        const r = readResponse(chunk.response);
        yield* decoder.text.end();
        onDone?.(r.id);
        yield decoder.finishPart(r);
        return;
      }
      default:
        break;
    }
  }
  throw endedEarly(provider, secrets);
}

/** One response's decoding state: the text block, the output items still open by index, and the counts. */
class ResponsesDecoder {
  readonly text = new TextBlock();
  private readonly open = new Map<number, Open>();
  private reasonings = 0;
  private calls = 0;

  constructor(private readonly provider: string) {}

  /** An output item starts: a reasoning part, a tool call (ending the text before it), or a message. */
  *itemAdded(index: number, raw: unknown): Generator<ModelStreamPart> {
    const item = readOutputItem(raw);
    if (item.type === "reasoning") {
      const id = `reasoning-${this.reasonings++}`;
      this.open.set(index, { kind: "reasoning", id, text: "", summaryIndex: 0 });
      yield { type: "reasoning-start", id };
    } else if (item.type === "function_call") {
      yield* this.text.end();
      this.calls++;
      this.open.set(index, { kind: "call", callId: item.callId, name: item.name, args: "" });
      yield { type: "tool-call-start", id: item.callId, toolName: item.name };
    } else if (item.type === "message") this.open.set(index, { kind: "message" });
  }

  /** A piece of a reasoning summary; summary parts are paragraphs of one reasoning part. */
  *reasoningDelta(index: number, delta: string, summaryIndex: number): Generator<ModelStreamPart> {
    const r = this.open.get(index);
    if (r?.kind !== "reasoning" || delta === "") return;
    const piece = summaryIndex !== r.summaryIndex && r.text !== "" ? `\n\n${delta}` : delta;
    r.summaryIndex = summaryIndex;
    r.text += piece;
    yield { type: "reasoning-delta", id: r.id, delta: piece };
  }

  /** A piece of a function call's arguments. */
  *argumentsDelta(index: number, delta: string): Generator<ModelStreamPart> {
    const c = this.open.get(index);
    if (c?.kind !== "call" || delta === "") return;
    c.args += delta;
    yield { type: "tool-call-delta", id: c.callId, delta };
  }

  /** An output item is done: the reasoning part with its id and encrypted content, the complete call, or the text's end. */
  *itemDone(index: number, raw: unknown): Generator<ModelStreamPart> {
    const o = this.open.get(index);
    this.open.delete(index);
    const item = readOutputItem(raw);
    if (o?.kind === "reasoning" && item.type === "reasoning") {
      yield { type: "reasoning-end", id: o.id };
      yield {
        type: "reasoning",
        provider: this.provider,
        text: item.text || o.text,
        itemId: item.id || undefined,
        redactedData: item.encryptedContent,
      };
    } else if (o?.kind === "call") {
      yield* finishToolCall(o.callId, o.name, item.type === "function_call" && item.arguments ? item.arguments : o.args);
    } else if (o?.kind === "message") yield* this.text.end();
  }

  /** The response is complete (or incomplete): the finish part with its reason and usage. */
  finishPart(r: ReturnType<typeof readResponse>): ModelStreamPart {
    const finish: ModelStreamPart = {
      type: "finish",
      finishReason: mapResponsesFinishReason(r.status, r.incompleteReason, this.calls > 0),
      usage: convertResponsesUsage(r.usage),
    };
    if (r.model) finish.modelId = r.model;
    return finish;
  }
}
