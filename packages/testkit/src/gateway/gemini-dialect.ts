/**
 * The Gemini dialect: `POST {origin}/{v1beta|v1}/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse` (a JSON array without `alt=sse`), `x-goog-api-key` or `?key=` auth,
 * `candidates[].content.parts[]` with `text` and whole `functionCall {name, args}` parts (Gemini does not
 * stream arguments in fragments), `finishReason`, `usageMetadata`, and `{"error":{code,message,status}}`.
 * Reasoning is served as a thought part (`thought: true`) first, with a signed `thoughtSignature` on the
 * first function call; usage carries `thoughtsTokenCount` and the cache model's `cachedContentTokenCount`.
 */
import { randomId, splitPieces, type Answer } from "./answer.ts";
import type { DialectCodec, ErrorKind, RenderContext, SseFrame } from "./dialect.ts";
import { checkGeminiReasoning, signFunctionCall } from "./gemini-checks.ts";
import { parseGeminiRequest } from "./gemini-request.ts";

const ROUTE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const STATUS_WORDS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};
const FALLBACK_WORDS: Record<ErrorKind, string> = {
  "invalid-request": "INVALID_ARGUMENT",
  authentication: "UNAUTHENTICATED",
  "not-found": "NOT_FOUND",
  "rate-limit": "RESOURCE_EXHAUSTED",
  "server-error": "INTERNAL",
};

/** Thoughts are counted apart from the candidates; cached tokens are part of the prompt count. */
const usageOf = (answer: Answer) => ({
  promptTokenCount: answer.usage.input,
  candidatesTokenCount: answer.usage.output,
  totalTokenCount: answer.usage.input + answer.usage.output + answer.usage.reasoning,
  promptTokensDetails: [{ modality: "TEXT", tokenCount: answer.usage.input }],
  cachedContentTokenCount: answer.usage.cacheRead > 0 ? answer.usage.cacheRead : undefined,
  thoughtsTokenCount: answer.reasoning === undefined ? undefined : answer.usage.reasoning,
});

/** The function calls; a thinking answer signs the first, as Gemini 3 does. */
const callParts = (answer: Answer, context: RenderContext) =>
  answer.toolCalls.map((call, index) => ({
    functionCall: { id: call.id, name: call.name, args: call.arguments },
    thoughtSignature:
      index === 0 && answer.reasoning !== undefined ? signFunctionCall(context.reasoning.signer, call.name, call.arguments) : undefined,
  }));

const thoughtParts = (answer: Answer) => (answer.reasoning === undefined ? [] : [{ text: answer.reasoning, thought: true }]);

function chunk(parts: unknown[], context: RenderContext, responseId: string, extra: { finishReason?: string; usage: unknown }) {
  return {
    candidates: [{ content: { parts, role: "model" }, finishReason: extra.finishReason, index: 0 }],
    usageMetadata: extra.usage,
    modelVersion: context.model,
    responseId,
  };
}

function renderResponse(answer: Answer, context: RenderContext): unknown {
  const parts = [...thoughtParts(answer), ...(answer.text === "" ? [] : [{ text: answer.text }]), ...callParts(answer, context)];
  return chunk(parts, context, randomId("", 22), { finishReason: answer.finishReason, usage: usageOf(answer) });
}

function renderStream(answer: Answer, context: RenderContext): SseFrame[] {
  const responseId = randomId("", 22);
  const pieces = splitPieces(answer.text);
  // Intermediate chunks report only the prompt count; the last one carries the finish reason and full usage.
  const running = { promptTokenCount: answer.usage.input, totalTokenCount: answer.usage.input };
  const last =
    answer.toolCalls.length > 0 ? callParts(answer, context) : pieces.length > 0 ? [{ text: pieces.pop() as string }] : [{ text: "" }];
  const frames = [...thoughtParts(answer).map((part) => [part]), ...pieces.map((text) => [{ text }])].map((parts) => ({
    data: JSON.stringify(chunk(parts, context, responseId, { usage: running })),
  }));
  frames.push({ data: JSON.stringify(chunk(last, context, responseId, { finishReason: answer.finishReason, usage: usageOf(answer) })) });
  return frames;
}

/** The Gemini generateContent codec. */
export const geminiDialect: DialectCodec = {
  dialect: "gemini",
  basePath: "",
  endpoints: "POST /v1beta/models/{model}:generateContent and :streamGenerateContent (or under /v1)",
  authMessage: "API key not valid. Please pass a valid API key (x-goog-api-key header or key query parameter).",
  finishWords: { stop: "STOP", length: "MAX_TOKENS", content_filter: "SAFETY", tool_calls: "STOP" },
  toolCallId: undefined,
  jsonContentType: "application/json; charset=UTF-8",
  sseContentType: "text/event-stream",
  sseLineEnd: "\r\n",
  doneFrame: undefined,
  responseHeaders: () => ({ "x-gemini-service-tier": "standard" }),
  matchRoute(method, path, query) {
    const match = ROUTE.exec(path);
    if (method !== "POST" || match === null) return undefined;
    const stream = match[3] === "streamGenerateContent";
    return { model: match[2], stream, jsonArrayStream: stream && query.get("alt") !== "sse" };
  },
  credential: (headers, query) => headers["x-goog-api-key"] ?? query.get("key") ?? undefined,
  parseRequest: (body, route) => parseGeminiRequest(body, route),
  cacheMode: "automatic",
  checkReasoning: checkGeminiReasoning,
  errorBody: (kind, status, message, retryAfterSeconds) => ({
    error: {
      code: status,
      message,
      status: STATUS_WORDS[status] ?? FALLBACK_WORDS[kind],
      ...(retryAfterSeconds === undefined
        ? {}
        : { details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` }] }),
    },
  }),
  renderResponse,
  renderStream,
};
