/**
 * The Anthropic Messages dialect: `POST {origin}/v1/messages`, `x-api-key` (or Bearer) auth, `message`
 * bodies with text and tool_use blocks, the named SSE events (`message_start`, `content_block_start`,
 * `ping`, `content_block_delta` with `text_delta` / `input_json_delta`, `content_block_stop`,
 * `message_delta`, `message_stop`), and `{"type":"error","error":{…}}` errors.
 */
import { randomId, splitPieces, type Answer } from "./answer.ts";
import type { DialectCodec, ErrorKind, RenderContext, SseFrame } from "./dialect.ts";
import { parseAnthropicRequest } from "./anthropic-request.ts";

const ERROR_TYPES: Record<ErrorKind, string> = {
  "invalid-request": "invalid_request_error",
  authentication: "authentication_error",
  "not-found": "not_found_error",
  "rate-limit": "rate_limit_error",
  "server-error": "api_error",
};

const contentOf = (answer: Answer) => [
  ...(answer.text === "" ? [] : [{ type: "text", text: answer.text }]),
  ...answer.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.arguments })),
];

const usageOf = (input: number, output: number) => ({
  input_tokens: input,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  output_tokens: output,
  service_tier: "standard",
});

function renderResponse(answer: Answer, context: RenderContext): unknown {
  return {
    id: randomId("msg_01", 22),
    type: "message",
    role: "assistant",
    model: context.model,
    content: contentOf(answer),
    stop_reason: answer.finishReason,
    stop_sequence: null,
    usage: usageOf(answer.usage.input, answer.usage.output),
  };
}

const frame = (type: string, body: Record<string, unknown>): SseFrame => ({ event: type, data: JSON.stringify({ type, ...body }) });

function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
  // Input tokens are reported once, in message_start; message_delta carries the output count.
  const frames: SseFrame[] = [
    frame("message_start", {
      message: { id: randomId("msg_01", 22), type: "message", role: "assistant", model: context.model, content: [], stop_reason: null, stop_sequence: null, usage: usageOf(answer.usage.input, 1) },
    }),
  ];
  let index = 0;
  if (answer.text !== "") {
    frames.push(frame("content_block_start", { index, content_block: { type: "text", text: "" } }), frame("ping", {}));
    for (const piece of splitPieces(answer.text)) frames.push(frame("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    frames.push(frame("content_block_stop", { index }));
    index += 1;
  }
  for (const call of answer.toolCalls) {
    frames.push(frame("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    // The real API opens with an empty fragment before the JSON arrives in pieces.
    for (const piece of ["", ...splitPieces(JSON.stringify(call.arguments))]) frames.push(frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    frames.push(frame("content_block_stop", { index }));
    index += 1;
  }
  frames.push(
    frame("message_delta", { delta: { stop_reason: answer.finishReason, stop_sequence: null }, usage: { output_tokens: answer.usage.output } }),
    frame("message_stop", {}),
  );
  return frames;
}

/** The Anthropic Messages codec. */
export const anthropicDialect: DialectCodec = {
  dialect: "anthropic",
  basePath: "",
  endpoints: "POST /v1/messages",
  authMessage: "invalid x-api-key",
  finishWords: { stop: "end_turn", length: "max_tokens", content_filter: "refusal", tool_calls: "tool_use" },
  toolCallId: () => randomId("toolu_01", 22),
  jsonContentType: "application/json",
  sseContentType: "text/event-stream; charset=utf-8",
  sseLineEnd: "\n",
  doneFrame: undefined,
  responseHeaders: () => ({ "request-id": randomId("req_01", 22) }),
  matchRoute: (method, path) => (method === "POST" && path === "/v1/messages" ? {} : undefined),
  credential(headers) {
    if (headers["x-api-key"] !== undefined) return headers["x-api-key"];
    return /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1];
  },
  parseRequest: (body, _route, headers) => parseAnthropicRequest(body, headers),
  errorBody: (kind, status, message) => ({
    type: "error",
    error: { type: status === 529 ? "overloaded_error" : ERROR_TYPES[kind], message },
    request_id: randomId("req_01", 22),
  }),
  renderResponse,
  renderStream,
};
