/**
 * Types of the fake LLM gateways: the script a test writes (turns), what the gateway records
 * (requests, normalised across dialects), and the handle a test holds.
 */

/** The wire dialect a fake gateway speaks. */
export type Dialect = "openai" | "responses" | "anthropic" | "gemini";

/** One tool call the scripted model makes. `id` is generated (`call_…` / `toolu_…`) when absent. */
export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
  id?: string;
}

/**
 * Token counts to report. Missing counts are estimated deterministically (about 4 characters a token).
 * `output` is the answer; reasoning tokens (estimated from the reasoning text) come on top of it, and
 * the cache split of the input comes from the gateway's own prompt-cache model.
 */
export interface TurnUsage {
  input?: number;
  output?: number;
  /** Reasoning tokens to report (default: estimated from `reasoning`). */
  reasoning?: number;
}

/**
 * The model's reasoning before it answers. Served as each dialect serves it: an Anthropic `thinking`
 * block with a signature the gateway checks when it comes back, a Gemini thought part (and a thought
 * signature on the first function call), OpenAI-compatible `reasoning_content` (or `reasoning`).
 */
export interface TurnReasoning {
  /** The reasoning text. */
  reasoning?: string;
  /** Anthropic: also a `redacted_thinking` block (opaque, signed data). */
  redactedReasoning?: boolean;
}

/**
 * A text answer. `finishReason` defaults to the dialect's natural stop (`stop` / `end_turn` / `STOP`);
 * the portable names `stop`, `length`, `content_filter` are mapped to each dialect's own word, any other
 * string is sent verbatim.
 */
export interface TextTurn extends TurnReasoning {
  text: string;
  usage?: TurnUsage;
  finishReason?: string;
}

/** One or more tool calls (parallel when several), optionally preceded by text. */
export interface ToolCallsTurn extends TurnReasoning {
  toolCalls: ToolCallSpec[];
  text?: string;
  usage?: TurnUsage;
}

/** 429 with a `Retry-After` header (seconds; default 1) and the dialect's rate-limit error body. */
export interface RateLimitFault {
  fault: "rate-limit";
  retryAfterSeconds?: number;
}

/** A 5xx (default 500) with the dialect's error body. */
export interface ServerErrorFault {
  fault: "server-error";
  status?: number;
}

/** Streaming: a broken SSE `data:` line mid-stream. Non-streaming: a 200 whose body is not JSON. */
export interface MalformedChunkFault {
  fault: "malformed-chunk";
}

/** Accept, send headers (and one chunk when streaming), then never finish until the client aborts or the gateway closes. */
export interface StallFault {
  fault: "stall";
}

/** Send the headers and part of the body, then drop the connection. */
export interface DisconnectFault {
  fault: "disconnect";
}

/** A scripted fault instead of an answer. */
export type FaultTurn = RateLimitFault | ServerErrorFault | MalformedChunkFault | StallFault | DisconnectFault;

/** A turn decided when the request arrives (e.g. echo the last tool result). */
export type DynamicTurn = (request: RecordedRequest) => StaticTurn | Promise<StaticTurn>;

/**
 * A text answer quoting the request's headers exactly as they arrived, one `name: value` line each, credentials
 * included — what a debugging proxy or a careless gateway does. For testing that a client keeps what its
 * upstream echoes (its own API key) out of everything it shows. The request record still has them redacted.
 */
export interface EchoHeadersTurn {
  echo: "headers";
}

/** A turn known up front. */
export type StaticTurn = TextTurn | ToolCallsTurn | FaultTurn | EchoHeadersTurn;

/** One scripted response: the gateway answers the n-th accepted request with the n-th turn. */
export type Turn = StaticTurn | DynamicTurn;

/** A tool call seen in the conversation a client sent. */
export interface NormalizedToolCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/** A tool result seen in the conversation a client sent. `content` is text (objects are JSON-encoded). */
export interface NormalizedToolResult {
  toolCallId?: string;
  name?: string;
  content: string;
  isError?: boolean;
}

/**
 * One message of the conversation a client sent, in the same shape whatever the dialect.
 * System prompts (`system` field, `systemInstruction`, `developer` role) become a leading `system` message;
 * Gemini's `model` role is `assistant`; OpenAI `tool` messages are role `tool`; Anthropic and Gemini carry
 * tool results inside `user` messages, and so do these.
 */
export interface NormalizedMessage {
  role: "system" | "user" | "assistant" | "tool";
  /** All text parts of the message, joined with "". */
  text: string;
  toolCalls: NormalizedToolCall[];
  toolResults: NormalizedToolResult[];
}

/** A request the gateway received (recorded whether it was answered, refused or faulted). */
export interface RecordedRequest {
  dialect: Dialect;
  /** The request body exactly as received (for byte-level checks such as a stable cached prefix). */
  bodyText: string;
  /** Request path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** The model asked for (body `model`, or the Gemini path segment). */
  model: string;
  stream: boolean;
  /**
   * Request headers, lower-cased. Credentials (`authorization`, `x-api-key`, `x-goog-api-key`) are
   * replaced by `"[redacted]"`; the `key` query parameter is never recorded.
   */
  headers: Record<string, string>;
  /** Whether any credential (header or `key` query parameter) was sent. */
  hasAuth: boolean;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  body: unknown;
  messages: NormalizedMessage[];
  /** Names of the tools offered. */
  tools: string[];
  /** Content of the most recent tool result in the conversation, if any. */
  lastToolResult?: string;
  /** Set when the gateway refused the request (bad body, auth, exhausted script): status and message sent. */
  rejected?: { status: number; message: string };
  /** What the gateway's prompt-cache model reported for this request, in tokens. */
  cache?: { read: number; write: number };
}

/** Options of {@link startFakeGateway}. */
export interface FakeGatewayOptions {
  dialect: Dialect;
  /** Turns answered in order. More can be added later with `push`. */
  script?: Turn[];
  /** When the script runs out: answer 500 (`"error"`, the default) or replay the last turn. */
  onExhausted?: "error" | "repeat-last";
  /** The model id responses report (e.g. a dated snapshot name); defaults to the model the request named. */
  model?: string;
  /** When set, requests must carry this key (Bearer / `x-api-key` / `x-goog-api-key` / `?key=`), else 401. */
  requireApiKey?: string;
  /** Wait this long before answering each request. */
  latencyMs?: number;
  /**
   * The prompt-cache model: prefixes shorter than `minTokens` (default 0; the real APIs use about 1024)
   * are not cached. Anthropic caches only at `cache_control` breakpoints; openai and gemini cache every
   * prefix they have seen (automatic / implicit caching). Entries never expire.
   */
  promptCache?: { minTokens?: number };
  /** openai: the field reasoning is served in (default `reasoning_content`; Ollama and OpenRouter use `reasoning`). */
  reasoningField?: "reasoning_content" | "reasoning";
  /**
   * openai: the server's rule for reasoning sent back in assistant messages: `ignore` (default: vLLM,
   * Ollama), `forbid` (400, as DeepSeek's reasoner), `require` (400 unless the reasoning served for a
   * tool-call turn comes back unchanged, as DeepSeek's thinking mode with tools). responses: `require`
   * refuses a `function_call` sent back without the reasoning item it was issued after.
   */
  reasoningPassBack?: "ignore" | "forbid" | "require";
  /**
   * Called once per request when the gateway has decided its fate (refused, or its turn chosen and about
   * to be played; `rejected` is final by then). For streaming the record out, e.g. from the CLI.
   */
  onRequest?: (request: RecordedRequest) => void;
}

/** A running fake gateway on 127.0.0.1. */
export interface FakeGateway {
  /** Base URL for the client: `${origin}/v1` for openai and responses, the origin for anthropic and gemini. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly dialect: Dialect;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Append turns to the script. */
  push(...turns: Turn[]): void;
  /** Turns not yet used. */
  remaining(): number;
  /** Resolves once at least `n` requests were recorded; rejects after `timeoutMs` (default 30 s) or on close. */
  waitForRequests(n: number, options?: { timeoutMs?: number }): Promise<void>;
  /** Stop listening, end stalled responses and drop open connections. Idempotent. */
  close(): Promise<void>;
}
