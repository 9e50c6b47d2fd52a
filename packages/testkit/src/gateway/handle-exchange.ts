/**
 * One request to a fake gateway, in steps: record it (credentials redacted), admit it — route, API key,
 * JSON, the dialect's parse and its reasoning rules, each refusal a 4xx in the dialect's error shape that
 * uses no turn — then take the script's next turn, count it against the prompt cache, wait out the
 * configured latency, and play it.
 */
import { estimateTokens } from "./answer.ts";
import { isObject, type DialectCodec, type ParsedRequest, type ReasoningContext, type RouteMatch } from "./dialect.ts";
import type { Exchange, Sink } from "./http-server.ts";
import { playTurn, sendError } from "./play-turn.ts";
import type { PromptCache } from "./prompt-cache.ts";
import { redact, type RequestLog, SECRET_HEADERS } from "./request-log.ts";
import type { Script } from "./script.ts";
import { checkStaticTurn } from "./turns.ts";
import type { EchoHeadersTurn, FakeGatewayOptions, RecordedRequest, StaticTurn, TextTurn } from "./types.ts";

/** What every request of one gateway shares. */
export interface GatewayParts {
  codec: DialectCodec;
  script: Script;
  log: RequestLog;
  reasoning: ReasoningContext;
  cache: PromptCache;
  options: FakeGatewayOptions;
}

/** One request being answered: its record and where the answer goes. */
interface Pending {
  entry: RecordedRequest;
  sink: Sink;
  headers: Record<string, string>;
}

/** A turn as played: an echo turn has become the text it echoes. */
type PlayableTurn = Exclude<StaticTurn, EchoHeadersTurn>;

/** Refusals and failures of the gateway itself: tell the official SDKs not to retry them. */
const NO_RETRY = { "x-should-retry": "false" };

/** Answer one request. */
export async function handleExchange(g: GatewayParts, exchange: Exchange, sink: Sink): Promise<void> {
  const { codec, options } = g;
  const headers = codec.responseHeaders();
  const route = codec.matchRoute(exchange.method, exchange.path, exchange.query);
  const { entry, body, json, credential } = recordedRequest(codec, exchange, route);
  const pending: Pending = { entry, sink, headers };
  if (route === undefined)
    return refuse(
      g,
      pending,
      404,
      `fake ${codec.dialect} gateway: no endpoint ${exchange.method} ${exchange.path}; it serves ${codec.endpoints}`,
    );
  if (options.requireApiKey !== undefined && credential !== options.requireApiKey) return refuse(g, pending, 401, codec.authMessage);
  if (!json) return refuse(g, pending, 400, "the request body is not valid JSON");
  const request = parseAndCheck(g, entry, body, route, exchange.headers);
  if (typeof request === "string") return refuse(g, pending, 400, request);
  g.log.record(entry);

  const turn = await scriptedTurn(g, entry, exchange.headers);
  if (typeof turn === "string") return refuse(g, pending, 500, turn);
  const promptChars = request.prefixes?.at(-1)?.chars;
  countPromptCache(g, entry, request, turn);
  options.onRequest?.(entry);
  await waitLatency(options.latencyMs, sink);
  if (sink.closed) return;
  const answer = { promptChars, cache: entry.cache, thinking: request.thinking || undefined };
  await playTurn(turn, {
    codec,
    sink,
    route,
    request,
    model: options.model ?? request.model,
    headers,
    answer,
    reasoning: g.reasoning,
  });
}

/** The request as recorded before any check: body parsed when it is JSON, model and stream as far as known. */
function recordedRequest(codec: DialectCodec, exchange: Exchange, route: RouteMatch | undefined) {
  let body: unknown = exchange.body;
  let json = true;
  try {
    body = JSON.parse(exchange.body);
  } catch {
    json = false;
  }
  const credential = codec.credential(exchange.headers, exchange.query);
  const entry: RecordedRequest = {
    dialect: codec.dialect,
    bodyText: exchange.body,
    path: exchange.path,
    model: route?.model ?? (isObject(body) && typeof body.model === "string" ? body.model : ""),
    stream: route?.stream ?? (isObject(body) && body.stream === true),
    headers: redact(exchange.headers),
    hasAuth: credential !== undefined || Object.keys(exchange.headers).some((name) => SECRET_HEADERS.has(name) && name !== "cookie"),
    body,
    messages: [],
    tools: [],
  };
  return { entry, body, json, credential };
}

/**
 * The dialect's parse of the body (what it could read goes on the record even when it fails) and its rules
 * for reasoning sent back: the parsed request, or the 400 message.
 */
function parseAndCheck(
  g: GatewayParts,
  entry: RecordedRequest,
  body: unknown,
  route: RouteMatch,
  headers: Record<string, string>,
): ParsedRequest | string {
  const parsed = g.codec.parseRequest(body, route, headers);
  const request: Partial<ParsedRequest> = parsed.ok ? parsed.request : parsed.partial;
  entry.messages = request.messages ?? [];
  entry.tools = request.tools ?? [];
  entry.model = request.model ?? entry.model;
  entry.stream = request.stream ?? entry.stream;
  const lastResult = entry.messages.flatMap((message) => message.toolResults).at(-1);
  if (lastResult !== undefined) entry.lastToolResult = lastResult.content;
  if (!parsed.ok) return parsed.message;
  return g.codec.checkReasoning(body as Record<string, unknown>, g.reasoning) ?? parsed.request;
}

/**
 * The script's next turn, a dynamic one called with the request, an `{ echo: "headers" }` one answered with
 * the request's headers as received: the turn to play, or the 500 message.
 */
async function scriptedTurn(g: GatewayParts, entry: RecordedRequest, headers: Record<string, string>): Promise<PlayableTurn | string> {
  const turn = g.script.next();
  if (turn === undefined)
    return `fake gateway: the script is exhausted after ${g.script.used} turns; push more turns or start the gateway with onExhausted: "repeat-last"`;
  let chosen: StaticTurn;
  try {
    chosen = typeof turn === "function" ? checkStaticTurn(await turn(entry)) : turn;
  } catch (error) {
    return `fake gateway: the dynamic turn failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return "echo" in chosen ? echoedHeaders(headers) : chosen;
}

/** The text an `{ echo: "headers" }` turn answers with: every header as received, credentials included. */
const echoedHeaders = (headers: Record<string, string>): TextTurn => ({
  text: Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n"),
});

/** The cache sees a request only when it is answered (a scripted fault never reaches the model). */
function countPromptCache(g: GatewayParts, entry: RecordedRequest, request: ParsedRequest, turn: PlayableTurn): void {
  const prefixes = request.prefixes;
  if (prefixes === undefined || "fault" in turn) return;
  const input = turn.usage?.input ?? estimateTokens(prefixes.at(-1)?.chars ?? 0);
  entry.cache = g.codec.cacheMode === "explicit" ? g.cache.explicit(prefixes, input) : g.cache.automatic(prefixes, input);
}

/** The configured latency before answering, cut short when the client goes away. */
async function waitLatency(latencyMs: number | undefined, sink: Sink): Promise<void> {
  if (latencyMs === undefined || latencyMs <= 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, latencyMs))), sink.whenClosed]);
  clearTimeout(timer);
}

/** Refuse the request: recorded with its refusal, reported, and answered in the dialect's error shape. */
function refuse(g: GatewayParts, { entry, sink, headers }: Pending, status: number, message: string): void {
  entry.rejected = { status, message };
  g.log.record(entry);
  g.options.onRequest?.(entry);
  sendError({ codec: g.codec, sink, headers }, status, message, NO_RETRY);
}
