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
  const text = new TextBlock();
  const open = new Map<number, Open>();
  let reasonings = 0;
  let calls = 0;
  let finished = false;

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
      case "response.output_item.added": {
        const item = readOutputItem(chunk.item);
        if (item.type === "reasoning") {
          const id = `reasoning-${reasonings++}`;
          open.set(index, { kind: "reasoning", id, text: "", summaryIndex: 0 });
          yield { type: "reasoning-start", id };
        } else if (item.type === "function_call") {
          yield* text.end();
          calls++;
          open.set(index, { kind: "call", callId: item.callId, name: item.name, args: "" });
          yield { type: "tool-call-start", id: item.callId, toolName: item.name };
        } else if (item.type === "message") open.set(index, { kind: "message" });
        break;
      }
      case "response.reasoning_summary_text.delta": {
        const r = open.get(index);
        if (r?.kind !== "reasoning" || delta === "") break;
        // Summary parts are paragraphs of one reasoning part.
        const part = num(chunk.summary_index) ?? 0;
        const piece = part !== r.summaryIndex && r.text !== "" ? `\n\n${delta}` : delta;
        r.summaryIndex = part;
        r.text += piece;
        yield { type: "reasoning-delta", id: r.id, delta: piece };
        break;
      }
      case "response.output_text.delta":
        yield* text.delta(delta);
        break;
      case "response.function_call_arguments.delta": {
        const c = open.get(index);
        if (c?.kind !== "call" || delta === "") break;
        c.args += delta;
        yield { type: "tool-call-delta", id: c.callId, delta };
        break;
      }
      case "response.output_item.done": {
        const o = open.get(index);
        open.delete(index);
        const item = readOutputItem(chunk.item);
        if (o?.kind === "reasoning" && item.type === "reasoning") {
          yield { type: "reasoning-end", id: o.id };
          yield {
            type: "reasoning",
            provider,
            text: item.text || o.text,
            itemId: item.id || undefined,
            redactedData: item.encryptedContent,
          };
        } else if (o?.kind === "call") {
          yield* finishToolCall(o.callId, o.name, item.type === "function_call" && item.arguments ? item.arguments : o.args);
        } else if (o?.kind === "message") yield* text.end();
        break;
      }
      case "response.completed":
      case "response.incomplete": {
        const r = readResponse(chunk.response);
        yield* text.end();
        const finish: ModelStreamPart = {
          type: "finish",
          finishReason: mapResponsesFinishReason(r.status, r.incompleteReason, calls > 0),
          usage: convertResponsesUsage(r.usage),
        };
        if (r.model) finish.modelId = r.model;
        onDone?.(r.id);
        finished = true;
        yield finish;
        break;
      }
      default:
        break;
    }
    if (finished) return;
  }
  throw endedEarly(provider, secrets);
}
