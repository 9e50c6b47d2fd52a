/**
 * The OpenAI Responses dialect: `POST {origin}/v1/responses`, Bearer auth, `response` objects whose
 * `output` holds `reasoning`, `message` and `function_call` items, and named SSE events
 * (`response.created` … `response.output_text.delta`, `response.function_call_arguments.delta`,
 * `response.reasoning_summary_text.delta` … `response.completed`), with no `[DONE]`. Reasoning is served
 * as a summary, with `encrypted_content` (signed by this gateway) when `include` asks for it. The
 * gateway keeps what the API keeps: responses made with `store` (the API's default) can be continued with
 * `previous_response_id`, and their reasoning items referred to by id; with `store: false` a reasoning item
 * comes back only with its encrypted content. Usage reports cached input and reasoning output tokens.
 *
 * The gateway's memory is responses-state.ts, the rendering responses-render.ts; this module is the codec.
 */
import { randomId, type Answer } from "./answer.ts";
import type { DialectCodec, ErrorKind, RenderContext, SseFrame } from "./dialect.ts";
import { responseObject, responseStreamFrames } from "./responses-render.ts";
import { parseResponsesRequest, type ResponsesRequestData } from "./responses-request.ts";
import { checkReasoningItems, createResponsesState, outputItems } from "./responses-state.ts";
import type { FakeGatewayOptions } from "./types.ts";

const ERROR_TYPES: Record<ErrorKind, { type: string; code: string | null }> = {
  "invalid-request": { type: "invalid_request_error", code: null },
  authentication: { type: "invalid_request_error", code: "invalid_api_key" },
  "not-found": { type: "invalid_request_error", code: "unknown_url" },
  "rate-limit": { type: "requests", code: "rate_limit_exceeded" },
  "server-error": { type: "server_error", code: null },
};

/** The responses codec of one gateway: it keeps stored responses and the reasoning it issued. */
export function createResponsesDialect(options: FakeGatewayOptions): DialectCodec {
  const state = createResponsesState();
  const dataOf = (context: RenderContext) => context.request?.dialectData as ResponsesRequestData | undefined;

  function renderResponse(answer: Answer, context: RenderContext): unknown {
    const id = randomId("resp_", 40);
    return responseObject(id, context, "completed", answer, outputItems(state, answer, dataOf(context), id));
  }

  function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
    const id = randomId("resp_", 40);
    return responseStreamFrames(id, context, answer, outputItems(state, answer, dataOf(context), id));
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
    parseRequest: (body) => parseResponsesRequest(body, (id) => state.stored.get(id)),
    cacheMode: "automatic",
    checkReasoning: (body) => checkReasoningItems(state, body, options.reasoningPassBack === "require"),
    errorBody: (kind, _status, message) => ({
      error: { message, type: ERROR_TYPES[kind].type, param: null, code: ERROR_TYPES[kind].code },
    }),
    renderResponse,
    renderStream,
  };
}
