/**
 * How a Responses gateway renders an answer: the `response` object (also the body of `response.created`,
 * `response.in_progress` and `response.completed`), and the stream of named SSE events, one group per
 * output item — reasoning summary, message text, function call arguments — each with its running
 * `sequence_number`, as the API sends them.
 */
import { splitPieces, type Answer } from "./answer.ts";
import type { RenderContext, SseFrame } from "./dialect.ts";
import type { ResponsesRequestData } from "./responses-request.ts";
import type { Item } from "./responses-state.ts";

/** Appends one named event to the stream, numbering it. */
type Emit = (type: string, fields: Item) => void;

/** Output tokens include reasoning; input tokens include cached ones. */
const usageOf = (answer: Answer) => ({
  input_tokens: answer.usage.input,
  input_tokens_details: { cached_tokens: answer.usage.cacheRead, cache_write_tokens: answer.usage.cacheWrite },
  output_tokens: answer.usage.output + answer.usage.reasoning,
  output_tokens_details: { reasoning_tokens: answer.usage.reasoning },
  total_tokens: answer.usage.input + answer.usage.output + answer.usage.reasoning,
});

/** The `response` object; `status` is used while there is no answer yet (in progress). */
export function responseObject(id: string, context: RenderContext, status: string, answer: Answer | undefined, output: Item[]): Item {
  const data = context.request?.dialectData as ResponsesRequestData | undefined;
  const incomplete = answer !== undefined && answer.finishReason !== "completed";
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: answer === undefined ? status : incomplete ? "incomplete" : "completed",
    background: false,
    error: null,
    incomplete_details: incomplete ? { reason: answer.finishReason } : null,
    instructions: data?.instructions ?? null,
    max_output_tokens: null,
    model: context.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: data?.previousResponseId ?? null,
    reasoning: {
      effort: (data?.reasoning?.effort as string | undefined) ?? null,
      summary: (data?.reasoning?.summary as string | undefined) ?? null,
    },
    service_tier: "default",
    store: data?.store ?? true,
    temperature: 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: data?.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: answer === undefined ? null : usageOf(answer),
    user: null,
    metadata: {},
  };
}

/** Every event of a streamed response: created, in progress, each item's events, then completed or incomplete. */
export function responseStreamFrames(id: string, context: RenderContext, answer: Answer, output: Item[]): SseFrame[] {
  const frames: SseFrame[] = [];
  let sequence = 0;
  const emit: Emit = (type, fields) => frames.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
  emit("response.created", { response: responseObject(id, context, "in_progress", undefined, []) });
  emit("response.in_progress", { response: responseObject(id, context, "in_progress", undefined, []) });
  output.forEach((item, outputIndex) => {
    if (item.type === "reasoning") emitReasoningItem(emit, item, outputIndex);
    else if (item.type === "message") emitMessageItem(emit, item, outputIndex);
    else emitFunctionCallItem(emit, item, outputIndex);
    emit("response.output_item.done", { output_index: outputIndex, item });
  });
  const final = responseObject(id, context, "completed", answer, output);
  emit(final.status === "completed" ? "response.completed" : "response.incomplete", { response: final });
  return frames;
}

/** A reasoning item's events: its summary part and the summary text in pieces. */
function emitReasoningItem(emit: Emit, item: Item, output_index: number): void {
  const item_id = item.id as string;
  const text = (item.summary as Array<{ text: string }>)[0]?.text ?? "";
  // The encrypted content arrives with the finished item, as the API sends it.
  const { encrypted_content: _later, ...opening } = item;
  emit("response.output_item.added", { output_index, item: { ...opening, summary: [] } });
  emit("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
  for (const delta of splitPieces(text))
    emit("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta, obfuscation: "x" });
  emit("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text });
  emit("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text } });
}

/** A message item's events: its content part and the text in pieces. */
function emitMessageItem(emit: Emit, item: Item, output_index: number): void {
  const item_id = item.id as string;
  const part = (item.content as Item[])[0] as Item;
  const text = part.text as string;
  emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
  emit("response.content_part.added", { item_id, output_index, content_index: 0, part: { ...part, text: "" } });
  for (const delta of splitPieces(text))
    emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
  emit("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
  emit("response.content_part.done", { item_id, output_index, content_index: 0, part });
}

/** A function call item's events: its arguments in pieces. */
function emitFunctionCallItem(emit: Emit, item: Item, output_index: number): void {
  const item_id = item.id as string;
  const args = item.arguments as string;
  emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
  for (const delta of splitPieces(args)) emit("response.function_call_arguments.delta", { item_id, output_index, delta });
  emit("response.function_call_arguments.done", { item_id, output_index, arguments: args, name: item.name });
}
