/**
 * `startFakeGateway`: a scripted LLM endpoint on 127.0.0.1. Each request is recorded (credentials
 * redacted), checked against its dialect (refusals are 4xx in the dialect's error shape and use no
 * turn), then answered with the next turn of the script.
 */
import { estimateTokens } from "./answer.ts";
import { anthropicDialect } from "./anthropic-dialect.ts";
import { isObject, type DialectCodec, type ParsedRequest } from "./dialect.ts";
import { geminiDialect } from "./gemini-dialect.ts";
import { listenLoopback, type Exchange, type Sink } from "./http-server.ts";
import { openAiDialect } from "./openai-dialect.ts";
import { playTurn, sendError } from "./play-turn.ts";
import { PromptCache } from "./prompt-cache.ts";
import { createResponsesDialect } from "./responses-dialect.ts";
import { createSigner } from "./signer.ts";
import { Script } from "./script.ts";
import { checkStaticTurn } from "./turns.ts";
import type { Dialect, FakeGateway, FakeGatewayOptions, RecordedRequest, StaticTurn, TextTurn } from "./types.ts";

/** Each dialect's codec; the responses one keeps state per gateway (stored responses, issued reasoning). */
const DIALECTS: Record<Dialect, (options: FakeGatewayOptions) => DialectCodec> = {
  openai: () => openAiDialect,
  responses: createResponsesDialect,
  anthropic: () => anthropicDialect,
  gemini: () => geminiDialect,
};

/** Headers whose values are secrets: recorded as "[redacted]". */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"]);

function redact(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.has(name) ? "[redacted]" : value]));
}

/** The text an `{ echo: "headers" }` turn answers with: every header as received, credentials included. */
const echoedHeaders = (headers: Record<string, string>): TextTurn => ({
  text: Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n"),
});

/** Refusals and failures of the gateway itself: tell the official SDKs not to retry them. */
const NO_RETRY = { "x-should-retry": "false" };

/**
 * Start a fake gateway speaking `options.dialect` on 127.0.0.1 (ephemeral port). Close it when done.
 *
 * Example:
 * {@includeCode ../../../../examples/sdk-usage/api/testkit.examples.ts#startFakeGateway}
 */
export async function startFakeGateway(options: FakeGatewayOptions): Promise<FakeGateway> {
  if (!Object.hasOwn(DIALECTS, options.dialect))
    throw new TypeError(
      `fake gateway: unknown dialect ${JSON.stringify(options.dialect)} (expected openai, responses, anthropic or gemini)`,
    );
  const codec = DIALECTS[options.dialect](options);
  const script = new Script(options.script ?? [], options.onExhausted ?? "error");
  const requests: RecordedRequest[] = [];
  const waiters = new Set<{ count: number; settle: (error?: Error) => void }>();
  const reasoning = { signer: createSigner(), options, served: new Set<string>() };
  const cache = new PromptCache(options.promptCache?.minTokens ?? 0);
  let closed = false;

  const record = (entry: RecordedRequest) => {
    requests.push(entry);
    for (const waiter of waiters) if (requests.length >= waiter.count) waiter.settle();
  };

  async function handle(exchange: Exchange, sink: Sink): Promise<void> {
    const headers = codec.responseHeaders();
    const route = codec.matchRoute(exchange.method, exchange.path, exchange.query);
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
    const refuse = (status: number, message: string) => {
      entry.rejected = { status, message };
      if (!requests.includes(entry)) record(entry);
      options.onRequest?.(entry);
      sendError({ codec, sink, headers }, status, message, NO_RETRY);
    };

    if (route === undefined)
      return refuse(404, `fake ${codec.dialect} gateway: no endpoint ${exchange.method} ${exchange.path}; it serves ${codec.endpoints}`);
    if (options.requireApiKey !== undefined && credential !== options.requireApiKey) return refuse(401, codec.authMessage);
    if (!json) return refuse(400, "the request body is not valid JSON");
    const parsed = codec.parseRequest(body, route, exchange.headers);
    const request: Partial<ParsedRequest> = parsed.ok ? parsed.request : parsed.partial;
    entry.messages = request.messages ?? [];
    entry.tools = request.tools ?? [];
    entry.model = request.model ?? entry.model;
    entry.stream = request.stream ?? entry.stream;
    const lastResult = entry.messages.flatMap((message) => message.toolResults).at(-1);
    if (lastResult !== undefined) entry.lastToolResult = lastResult.content;
    if (!parsed.ok) return refuse(400, parsed.message);
    const reasoningProblem = codec.checkReasoning(body as Record<string, unknown>, reasoning);
    if (reasoningProblem !== undefined) return refuse(400, reasoningProblem);
    record(entry);

    const turn = script.next();
    if (turn === undefined)
      return refuse(
        500,
        `fake gateway: the script is exhausted after ${script.used} turns; push more turns or start the gateway with onExhausted: "repeat-last"`,
      );
    let chosen: StaticTurn;
    try {
      chosen = typeof turn === "function" ? checkStaticTurn(await turn(entry)) : turn;
    } catch (error) {
      return refuse(500, `fake gateway: the dynamic turn failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    const staticTurn = "echo" in chosen ? echoedHeaders(exchange.headers) : chosen;
    const prefixes = parsed.request.prefixes;
    const promptChars = prefixes?.at(-1)?.chars;
    // The cache sees a request only when it is answered (a scripted fault never reaches the model).
    if (prefixes !== undefined && !("fault" in staticTurn)) {
      const input = staticTurn.usage?.input ?? estimateTokens(promptChars ?? 0);
      entry.cache = codec.cacheMode === "explicit" ? cache.explicit(prefixes, input) : cache.automatic(prefixes, input);
    }
    options.onRequest?.(entry);
    if (options.latencyMs !== undefined && options.latencyMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, options.latencyMs))), sink.whenClosed]);
      clearTimeout(timer);
    }
    if (sink.closed) return;
    const answer = { promptChars, cache: entry.cache, thinking: parsed.request.thinking || undefined };
    await playTurn(staticTurn, {
      codec,
      sink,
      route,
      request: parsed.request,
      model: options.model ?? parsed.request.model,
      headers,
      answer,
      reasoning,
    });
  }

  const server = await listenLoopback(handle);
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    url: origin + codec.basePath,
    origin,
    dialect: codec.dialect,
    requests,
    push: (...turns) => script.push(...turns),
    remaining: () => script.remaining,
    waitForRequests(count, { timeoutMs = 30_000 } = {}) {
      if (requests.length >= count) return Promise.resolve();
      if (closed) return Promise.reject(new Error(`fake gateway: closed with ${requests.length} of ${count} requests`));
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          count,
          settle(error?: Error) {
            clearTimeout(timer);
            waiters.delete(waiter);
            if (error === undefined) resolve();
            else reject(error);
          },
        };
        const timer = setTimeout(
          () => waiter.settle(new Error(`fake gateway: waited ${timeoutMs} ms for ${count} requests, got ${requests.length}`)),
          timeoutMs,
        );
        waiters.add(waiter);
      });
    },
    async close() {
      closed = true;
      for (const waiter of waiters) waiter.settle(new Error(`fake gateway: closed with ${requests.length} of ${waiter.count} requests`));
      await server.close();
    },
  };
}
