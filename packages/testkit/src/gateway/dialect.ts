/**
 * The contract each dialect implements: where its endpoints are, how it authenticates, how it reads and
 * checks a request, and how it shapes answers, streams and errors. The gateway core is dialect-free.
 */
import type { Answer, FinishWords } from "./answer.ts";
import type { PromptPrefix } from "./prompt-cache.ts";
import type { Signer } from "./signer.ts";
import type { Dialect, FakeGatewayOptions, NormalizedMessage } from "./types.ts";

/** One server-sent event. `event` is the SSE event name (Anthropic names every event). */
export interface SseFrame {
  event?: string;
  data: string;
}

/** The endpoint a request hit. */
export interface RouteMatch {
  /** Model named in the path (Gemini). */
  model?: string;
  /** Streaming requested by the path (Gemini); other dialects read `stream` from the body. */
  stream?: boolean;
  /** Gemini `streamGenerateContent` without `alt=sse` answers one JSON array instead of SSE. */
  jsonArrayStream?: boolean;
}

/** A request that passed the dialect's checks. */
export interface ParsedRequest {
  model: string;
  stream: boolean;
  messages: NormalizedMessage[];
  tools: string[];
  /** OpenAI `stream_options.include_usage`: a final usage chunk is wanted. */
  includeUsage: boolean;
  /** The prompt as a chain of prefixes, for the cache model (absent: nothing is cached). */
  prefixes?: PromptPrefix[];
  /** The request turns thinking on (Anthropic `thinking`, Gemini `thinkingConfig`). */
  thinking?: boolean;
  /** What a dialect keeps of the request for its own rendering (the responses dialect's conversation). */
  dialectData?: unknown;
}

/** What a dialect's reasoning checks and rendering need from the gateway. */
export interface ReasoningContext {
  signer: Signer;
  options: FakeGatewayOptions;
  /** Reasoning texts this gateway served (openai `reasoningPassBack: "require"` checks against them). */
  served: Set<string>;
}

/** A body read (or refused) by a dialect; `partial` is what could be recorded of a refused one. */
export type ParseResult = { ok: true; request: ParsedRequest } | { ok: false; message: string; partial: Partial<ParsedRequest> };

/** What the rendering needs beyond the answer. */
export interface RenderContext {
  /** Model id to report. */
  model: string;
  includeUsage: boolean;
  reasoning: ReasoningContext;
  /** The request being answered. */
  request?: ParsedRequest;
}

/** HTTP status classes a gateway refuses or faults with. */
export type ErrorKind = "invalid-request" | "authentication" | "not-found" | "rate-limit" | "server-error";

/** A dialect of the fake gateway. */
export interface DialectCodec {
  readonly dialect: Dialect;
  /** Appended to the origin to form the base URL its official SDK wants. */
  readonly basePath: string;
  /** The endpoints served, for the message of a 404. */
  readonly endpoints: string;
  /** The 401 message when the API key is missing or wrong. */
  readonly authMessage: string;
  readonly finishWords: FinishWords;
  /** Id generator for tool calls, absent when the dialect does not id them (Gemini). */
  readonly toolCallId: (() => string) | undefined;
  readonly jsonContentType: string;
  readonly sseContentType: string;
  /** Frame separator: Gemini sends CRLF pairs, the others LF pairs. */
  readonly sseLineEnd: "\n" | "\r\n";
  /** Terminal SSE data line after the last frame (OpenAI `[DONE]`). */
  readonly doneFrame: SseFrame | undefined;
  /** Extra headers on every response (request ids). */
  responseHeaders(): Record<string, string>;
  matchRoute(method: string, path: string, query: URLSearchParams): RouteMatch | undefined;
  /** The credential a request presents, if any. */
  credential(headers: Record<string, string>, query: URLSearchParams): string | undefined;
  parseRequest(body: unknown, route: RouteMatch, headers: Record<string, string>): ParseResult;
  /** How the prompt cache works: at `cache_control` breakpoints, or on every prefix by itself. */
  readonly cacheMode: "explicit" | "automatic";
  /** The API's rules for reasoning sent back (signatures unchanged, thinking kept in a tool-use turn); a 400 message or undefined. */
  checkReasoning(body: Record<string, unknown>, context: ReasoningContext): string | undefined;
  errorBody(kind: ErrorKind, status: number, message: string, retryAfterSeconds?: number): unknown;
  renderResponse(answer: Answer, context: RenderContext): unknown;
  /** Every frame of a streamed answer, finish and usage included, without `doneFrame`. */
  renderStream(answer: Answer, context: RenderContext): SseFrame[];
}

/** Encode one frame as SSE text. */
export function formatFrame(frame: SseFrame, lineEnd: "\n" | "\r\n"): string {
  const event = frame.event === undefined ? "" : `event: ${frame.event}${lineEnd}`;
  return `${event}data: ${frame.data}${lineEnd}${lineEnd}`;
}

/** Map an HTTP status to the error kind a dialect names it by. */
export function kindOfStatus(status: number): ErrorKind {
  if (status === 401) return "authentication";
  if (status === 404) return "not-found";
  if (status === 429) return "rate-limit";
  if (status >= 500) return "server-error";
  return "invalid-request";
}

/** Small guards shared by the request parsers. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Text of a JSON value for recording: strings as they are, anything else JSON-encoded. */
export const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? null));

/** Thrown by a parser at the first problem; the message says where (`messages[2].content[0]: …`). */
export class RequestProblem extends Error {}

/** Throw a {@link RequestProblem}. */
export function problem(message: string): never {
  throw new RequestProblem(message);
}

/** Run a parser that throws {@link RequestProblem}s, keeping what it had parsed so far for the record. */
export function runParser(partial: Partial<ParsedRequest>, parse: () => ParsedRequest): ParseResult {
  try {
    return { ok: true, request: parse() };
  } catch (error) {
    if (error instanceof RequestProblem) return { ok: false, message: error.message, partial };
    throw error;
  }
}
