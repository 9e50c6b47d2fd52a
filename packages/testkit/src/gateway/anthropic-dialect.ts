/**
 * The Anthropic Messages dialect: `POST {origin}/v1/messages`, `x-api-key` (or Bearer) auth, `message`
 * bodies with text and tool_use blocks, the named SSE events (`message_start`, `content_block_start`,
 * `ping`, `content_block_delta` with `text_delta` / `input_json_delta`, `content_block_stop`,
 * `message_delta`, `message_stop`), and `{"type":"error","error":{…}}` errors. Reasoning is served as
 * signed `thinking` (`thinking_delta`, `signature_delta`) and `redacted_thinking` blocks; usage carries
 * the cache split of the gateway's cache model and the thinking tokens.
 */
import { randomId, splitPieces, type Answer } from "./answer.ts";
import { checkAnthropicReasoning, redactedData, signThinking } from "./anthropic-checks.ts";
import type { DialectCodec, ErrorKind, RenderContext, SseFrame } from "./dialect.ts";
import { parseAnthropicRequest } from "./anthropic-request.ts";

const ERROR_TYPES: Record<ErrorKind, string> = {
  "invalid-request": "invalid_request_error",
  authentication: "authentication_error",
  "not-found": "not_found_error",
  "rate-limit": "rate_limit_error",
  "server-error": "api_error",
};

/** The thinking blocks of an answer, signed. */
const thinkingOf = (answer: Answer, context: RenderContext) => [
  ...(answer.reasoning === undefined
    ? []
    : [{ type: "thinking", thinking: answer.reasoning, signature: signThinking(context.reasoning.signer, answer.reasoning) }]),
  ...(answer.redactedReasoning ? [{ type: "redacted_thinking", data: redactedData(context.reasoning.signer) }] : []),
];

const contentOf = (answer: Answer, context: RenderContext) => [
  ...thinkingOf(answer, context),
  ...(answer.text === "" ? [] : [{ type: "text", text: answer.text }]),
  ...answer.toolCalls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.arguments })),
];

/** Anthropic reports uncached input apart from cache reads and writes; output includes thinking. */
const usageOf = (answer: Answer, output: number) => ({
  input_tokens: answer.usage.input - answer.usage.cacheRead - answer.usage.cacheWrite,
  cache_creation_input_tokens: answer.usage.cacheWrite,
  cache_read_input_tokens: answer.usage.cacheRead,
  output_tokens: output,
  output_tokens_details: answer.reasoning === undefined ? undefined : { thinking_tokens: answer.usage.reasoning },
  service_tier: "standard",
});

const outputOf = (answer: Answer) => answer.usage.output + answer.usage.reasoning;

function renderResponse(answer: Answer, context: RenderContext): unknown {
  return {
    id: randomId("msg_01", 22),
    type: "message",
    role: "assistant",
    model: context.model,
    content: contentOf(answer, context),
    stop_reason: answer.finishReason,
    stop_sequence: null,
    usage: usageOf(answer, outputOf(answer)),
  };
}

const frame = (type: string, body: Record<string, unknown>): SseFrame => ({ event: type, data: JSON.stringify({ type, ...body }) });

function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
  // Input tokens are reported once, in message_start; message_delta carries the output count.
  const frames: SseFrame[] = [
    frame("message_start", {
      message: {
        id: randomId("msg_01", 22),
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageOf(answer, 1),
      },
    }),
  ];
  let index = 0;
  for (const block of thinkingOf(answer, context)) {
    if (block.type === "redacted_thinking") {
      frames.push(frame("content_block_start", { index, content_block: block }), frame("content_block_stop", { index }));
    } else {
      frames.push(frame("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
      for (const piece of splitPieces(block.thinking as string))
        frames.push(frame("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
      frames.push(
        frame("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } }),
        frame("content_block_stop", { index }),
      );
    }
    index += 1;
  }
  if (answer.text !== "") {
    frames.push(frame("content_block_start", { index, content_block: { type: "text", text: "" } }), frame("ping", {}));
    for (const piece of splitPieces(answer.text))
      frames.push(frame("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    frames.push(frame("content_block_stop", { index }));
    index += 1;
  }
  for (const call of answer.toolCalls) {
    frames.push(frame("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    // The real API opens with an empty fragment before the JSON arrives in pieces.
    for (const piece of ["", ...splitPieces(JSON.stringify(call.arguments))])
      frames.push(frame("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    frames.push(frame("content_block_stop", { index }));
    index += 1;
  }
  frames.push(
    frame("message_delta", {
      delta: { stop_reason: answer.finishReason, stop_sequence: null },
      usage: {
        output_tokens: outputOf(answer),
        output_tokens_details: answer.reasoning === undefined ? undefined : { thinking_tokens: answer.usage.reasoning },
      },
    }),
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
  cacheMode: "explicit",
  checkReasoning: checkAnthropicReasoning,
  errorBody: (kind, status, message) => ({
    type: "error",
    error: { type: status === 529 ? "overloaded_error" : ERROR_TYPES[kind], message },
    request_id: randomId("req_01", 22),
  }),
  renderResponse,
  renderStream,
};
