/**
 * The OpenAI-compatible chat completions dialect: `POST {origin}/v1/chat/completions`, Bearer auth,
 * `chat.completion` bodies, `chat.completion.chunk` SSE frames ending in `data: [DONE]`, tool-call
 * arguments streamed as fragments, an optional final usage chunk, and `{"error":{…}}` errors. Reasoning
 * is served in `reasoning_content` (or `reasoning`) on the message or delta, before the answer; usage
 * reports cached prompt tokens (the gateway's cache model) and reasoning tokens.
 */
import { randomId, splitPieces, type Answer } from "./answer.ts";
import type { DialectCodec, ErrorKind, RenderContext, SseFrame } from "./dialect.ts";
import { checkOpenAiReasoning } from "./openai-checks.ts";
import { parseOpenAiRequest } from "./openai-request.ts";

const ERROR_TYPES: Record<ErrorKind, { type: string; code: string | null }> = {
  "invalid-request": { type: "invalid_request_error", code: null },
  authentication: { type: "invalid_request_error", code: "invalid_api_key" },
  "not-found": { type: "invalid_request_error", code: "unknown_url" },
  "rate-limit": { type: "requests", code: "rate_limit_exceeded" },
  "server-error": { type: "server_error", code: null },
};

/** Completion tokens include reasoning; prompt tokens include cached ones. */
const usageOf = (answer: Answer) => {
  const completion = answer.usage.output + answer.usage.reasoning;
  return {
    prompt_tokens: answer.usage.input,
    completion_tokens: completion,
    total_tokens: answer.usage.input + completion,
    prompt_tokens_details: { cached_tokens: answer.usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: answer.usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
};

const reasoningField = (context: RenderContext) => context.reasoning.options.reasoningField ?? "reasoning_content";

const created = () => Math.floor(Date.now() / 1000);
const FINGERPRINT = "fp_agentd_testkit";

function renderResponse(answer: Answer, context: RenderContext): unknown {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: answer.text === "" && answer.toolCalls.length > 0 ? null : answer.text,
    refusal: null,
    annotations: [],
  };
  if (answer.reasoning !== undefined) message[reasoningField(context)] = answer.reasoning;
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
  }
  return {
    id: randomId("chatcmpl-", 29),
    object: "chat.completion",
    created: created(),
    model: context.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: usageOf(answer),
    service_tier: "default",
    system_fingerprint: FINGERPRINT,
  };
}

function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
  const id = randomId("chatcmpl-", 29);
  const stamp = created();
  // With include_usage every chunk carries `usage: null` and one last chunk with empty choices carries it.
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    data: JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created: stamp,
      model: context.model,
      system_fingerprint: FINGERPRINT,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      usage: context.includeUsage ? null : undefined,
    }),
  });
  // Real endpoints open with the role; content is "" before text and null before tool calls.
  const frames: SseFrame[] = [
    chunk({ role: "assistant", content: answer.text === "" && answer.toolCalls.length > 0 ? null : "", refusal: null }),
  ];
  for (const piece of splitPieces(answer.reasoning ?? "")) frames.push(chunk({ [reasoningField(context)]: piece }));
  for (const piece of splitPieces(answer.text)) frames.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitPieces(JSON.stringify(call.arguments)))
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, answer.finishReason));
  if (context.includeUsage) {
    frames.push({
      data: JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: stamp,
        model: context.model,
        system_fingerprint: FINGERPRINT,
        choices: [],
        usage: usageOf(answer),
      }),
    });
  }
  return frames;
}

/** The OpenAI-compatible chat completions codec. */
export const openAiDialect: DialectCodec = {
  dialect: "openai",
  basePath: "/v1",
  endpoints: "POST /v1/chat/completions",
  authMessage: 'Incorrect API key provided. Send it as "Authorization: Bearer <key>".',
  finishWords: { stop: "stop", length: "length", content_filter: "content_filter", tool_calls: "tool_calls" },
  toolCallId: () => randomId("call_", 24),
  jsonContentType: "application/json",
  sseContentType: "text/event-stream; charset=utf-8",
  sseLineEnd: "\n",
  doneFrame: { data: "[DONE]" },
  responseHeaders: () => ({ "x-request-id": randomId("req_", 32), "openai-processing-ms": "1" }),
  matchRoute: (method, path) => (method === "POST" && path === "/v1/chat/completions" ? {} : undefined),
  credential(headers) {
    const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "");
    return match?.[1];
  },
  parseRequest: (body) => parseOpenAiRequest(body),
  cacheMode: "automatic",
  checkReasoning: checkOpenAiReasoning,
  errorBody: (kind, _status, message) => ({ error: { message, type: ERROR_TYPES[kind].type, param: null, code: ERROR_TYPES[kind].code } }),
  renderResponse,
  renderStream,
};
