/**
 * The OpenAI Responses dialect: `POST {origin}/v1/responses`, Bearer auth, `response` objects whose
 * `output` holds `reasoning`, `message` and `function_call` items, and named SSE events
 * (`response.created` … `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.reasoning_summary_text.delta` … `response.completed`), with no `[DONE]`. Reasoning is served
 * as a summary, with `encrypted_content` (signed by this gateway) when `include` asks for it. The
 * gateway keeps what the API keeps: responses made with `store` (the API's default) can be continued with
 * `previous_response_id`, and their reasoning items referred to by id; with `store: false` a reasoning item
 * comes back only with its encrypted content. Usage reports cached input and reasoning output tokens.
 */
import { randomId, splitPieces, type Answer } from "./answer.ts";
import { isObject, type DialectCodec, type ErrorKind, type ReasoningContext, type RenderContext, type SseFrame } from "./dialect.ts";
import { parseResponsesRequest, type ResponsesRequestData } from "./responses-request.ts";
import { createSigner } from "./signer.ts";
import type { FakeGatewayOptions } from "./types.ts";

const ERROR_TYPES: Record<ErrorKind, { type: string; code: string | null }> = {
  "invalid-request": { type: "invalid_request_error", code: null },
  authentication: { type: "invalid_request_error", code: "invalid_api_key" },
  "not-found": { type: "invalid_request_error", code: "unknown_url" },
  "rate-limit": { type: "requests", code: "rate_limit_exceeded" },
  "server-error": { type: "server_error", code: null },
};

/** Output tokens include reasoning; input tokens include cached ones. */
const usageOf = (answer: Answer) => ({
  input_tokens: answer.usage.input,
  input_tokens_details: { cached_tokens: answer.usage.cacheRead, cache_write_tokens: answer.usage.cacheWrite },
  output_tokens: answer.usage.output + answer.usage.reasoning,
  output_tokens_details: { reasoning_tokens: answer.usage.reasoning },
  total_tokens: answer.usage.input + answer.usage.output + answer.usage.reasoning,
});

type Item = Record<string, unknown>;

/** The responses codec of one gateway: it keeps stored responses and the reasoning it issued. */
export function createResponsesDialect(options: FakeGatewayOptions): DialectCodec {
  const signer = createSigner();
  /** Conversations of stored responses (input and output items), by response id. */
  const stored = new Map<string, Item[]>();
  /** Reasoning item ids of stored responses (referable by id alone). */
  const storedReasoning = new Set<string>();
  /** The reasoning item each issued call was made after: the API wants it back with the call. */
  const reasoningOfCall = new Map<string, string>();

  const encrypt = (id: string, text: string) => {
    const payload = Buffer.from(JSON.stringify({ id, text })).toString("base64url");
    return `${payload}.${signer.sign(payload)}`;
  };
  const decryptsTo = (token: string, id: string) => {
    const [payload, signature] = token.split(".");
    if (!payload || !signer.verify(payload, signature)) return false;
    try {
      return (JSON.parse(Buffer.from(payload, "base64url").toString()) as { id?: unknown }).id === id;
    } catch {
      return false;
    }
  };

  /** The output items of an answer, registered with the gateway's state. */
  function outputOf(answer: Answer, data: ResponsesRequestData | undefined, responseId: string): Item[] {
    const items: Item[] = [];
    let reasoningId: string | undefined;
    if (answer.reasoning !== undefined) {
      reasoningId = randomId("rs_", 40);
      items.push({
        id: reasoningId,
        type: "reasoning",
        summary: [{ type: "summary_text", text: answer.reasoning }],
        encrypted_content: data?.encryptedReasoning ? encrypt(reasoningId, answer.reasoning) : undefined,
      });
    }
    if (answer.text !== "")
      items.push({
        id: randomId("msg_", 40),
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", annotations: [], logprobs: [], text: answer.text }],
      });
    for (const call of answer.toolCalls) {
      const callId = call.id ?? randomId("call_", 24);
      if (reasoningId) reasoningOfCall.set(callId, reasoningId);
      items.push({
        id: randomId("fc_", 40),
        type: "function_call",
        status: "completed",
        arguments: JSON.stringify(call.arguments),
        call_id: callId,
        name: call.name,
      });
    }
    if (data?.store) {
      stored.set(responseId, [...data.conversation, ...items]);
      if (reasoningId) storedReasoning.add(reasoningId);
    }
    return items;
  }

  function responseObject(id: string, context: RenderContext, status: string, answer: Answer | undefined, output: Item[]): Item {
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

  function renderResponse(answer: Answer, context: RenderContext): unknown {
    const id = randomId("resp_", 40);
    return responseObject(
      id,
      context,
      "completed",
      answer,
      outputOf(answer, context.request?.dialectData as ResponsesRequestData | undefined, id),
    );
  }

  function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
    const id = randomId("resp_", 40);
    const output = outputOf(answer, context.request?.dialectData as ResponsesRequestData | undefined, id);
    const frames: SseFrame[] = [];
    let sequence = 0;
    const emit = (type: string, fields: Item) =>
      frames.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
    emit("response.created", { response: responseObject(id, context, "in_progress", undefined, []) });
    emit("response.in_progress", { response: responseObject(id, context, "in_progress", undefined, []) });
    output.forEach((item, output_index) => {
      const item_id = item.id as string;
      if (item.type === "reasoning") {
        const text = (item.summary as Array<{ text: string }>)[0]?.text ?? "";
        // The encrypted content arrives with the finished item, as the API sends it.
        const { encrypted_content: _later, ...opening } = item;
        emit("response.output_item.added", { output_index, item: { ...opening, summary: [] } });
        emit("response.reasoning_summary_part.added", {
          item_id,
          output_index,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of splitPieces(text))
          emit("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta, obfuscation: "x" });
        emit("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text });
        emit("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text } });
      } else if (item.type === "message") {
        const part = (item.content as Item[])[0] as Item;
        const text = part.text as string;
        emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
        emit("response.content_part.added", { item_id, output_index, content_index: 0, part: { ...part, text: "" } });
        for (const delta of splitPieces(text))
          emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
        emit("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
        emit("response.content_part.done", { item_id, output_index, content_index: 0, part });
      } else {
        const args = item.arguments as string;
        emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
        for (const delta of splitPieces(args)) emit("response.function_call_arguments.delta", { item_id, output_index, delta });
        emit("response.function_call_arguments.done", { item_id, output_index, arguments: args, name: item.name });
      }
      emit("response.output_item.done", { output_index, item });
    });
    const final = responseObject(id, context, "completed", answer, output);
    emit(final.status === "completed" ? "response.completed" : "response.incomplete", { response: final });
    return frames;
  }

  /** Reasoning items sent back: verifiable encrypted content, or an id this gateway stored; required with their calls when asked. */
  function checkReasoning(body: Record<string, unknown>, _context: ReasoningContext): string | undefined {
    if (!Array.isArray(body.input)) return undefined;
    const seen = new Set<string>();
    for (const [index, item] of body.input.entries()) {
      if (!isObject(item)) continue;
      if (item.type === "reasoning" && typeof item.id === "string") {
        if (typeof item.encrypted_content === "string") {
          if (!decryptsTo(item.encrypted_content, item.id))
            return `The encrypted content for item ${item.id} could not be verified. (input[${index}].encrypted_content)`;
        } else if (!storedReasoning.has(item.id))
          return `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
        seen.add(item.id);
      }
      if (item.type === "function_call" && options.reasoningPassBack === "require") {
        const required = reasoningOfCall.get(item.call_id as string);
        if (required !== undefined && !seen.has(required))
          return `Item 'input[${index}]' of type 'function_call' (call_id ${String(item.call_id)}) was provided without its required 'reasoning' item: '${required}'.`;
      }
    }
    return undefined;
  }

  return {
    dialect: "responses",
    basePath: "/v1",
    endpoints: "POST /v1/responses",
    authMessage: 'Incorrect API key provided. Send it as "Authorization: Bearer <key>".',
    finishWords: { stop: "completed", length: "max_output_tokens", content_filter: "content_filter", tool_calls: "completed" },
    toolCallId: () => randomId("call_", 24),
    jsonContentType: "application/json",
    sseContentType: "text/event-stream; charset=utf-8",
    sseLineEnd: "\n",
    doneFrame: undefined,
    responseHeaders: () => ({ "x-request-id": randomId("req_", 32), "openai-processing-ms": "1" }),
    matchRoute: (method, path) => (method === "POST" && path === "/v1/responses" ? {} : undefined),
    credential(headers) {
      return /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1];
    },
    parseRequest: (body) => parseResponsesRequest(body, (id) => stored.get(id)),
    cacheMode: "automatic",
    checkReasoning,
    errorBody: (kind, _status, message) => ({
      error: { message, type: ERROR_TYPES[kind].type, param: null, code: ERROR_TYPES[kind].code },
    }),
    renderResponse,
    renderStream,
  };
}
