/**
 * `startFakeGateway`: a scripted LLM endpoint on 127.0.0.1. Each request is recorded (credentials
 * redacted), checked against its dialect (refusals are 4xx in the dialect's error shape and use no
 * turn), then answered with the next turn of the script (handle-exchange.ts; the record is request-log.ts).
 */
import type { DialectCodec } from "./dialect.ts";
import { type GatewayParts, handleExchange } from "./handle-exchange.ts";
import { listenLoopback } from "./http-server.ts";
import { openAiDialect } from "./openai-dialect.ts";
import { PromptCache } from "./prompt-cache.ts";
import { RequestLog } from "./request-log.ts";
import { createSigner } from "./signer.ts";
import { Script } from "./script.ts";
import type { Dialect, FakeGateway, FakeGatewayOptions } from "./types.ts";

/**
 * Each dialect's codec; the responses one keeps state per gateway (stored responses, issued reasoning). All
 * but the openai one are loaded when a gateway speaks them: `agentd demo` starts an openai gateway on its
 * critical path and would load the other three's request checks and renderers for nothing.
 */
const DIALECTS: Record<Dialect, (options: FakeGatewayOptions) => DialectCodec | Promise<DialectCodec>> = {
  openai: () => openAiDialect,
  responses: async (options) => (await import("./responses-dialect.ts")).createResponsesDialect(options),
  anthropic: async () => (await import("./anthropic-dialect.ts")).anthropicDialect,
  gemini: async () => (await import("./gemini-dialect.ts")).geminiDialect,
};

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
  const codec = await DIALECTS[options.dialect](options);
  const script = new Script(options.script ?? [], options.onExhausted ?? "error");
  const log = new RequestLog();
  const parts: GatewayParts = {
    codec,
    script,
    log,
    reasoning: { signer: createSigner(), options, served: new Set<string>() },
    cache: new PromptCache(options.promptCache?.minTokens ?? 0),
    options,
  };
  const server = await listenLoopback((exchange, sink) => handleExchange(parts, exchange, sink));
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    url: origin + codec.basePath,
    origin,
    dialect: codec.dialect,
    requests: log.requests,
    push: (...turns) => script.push(...turns),
    remaining: () => script.remaining,
    waitForRequests: (count, { timeoutMs = 30_000 } = {}) => log.waitFor(count, timeoutMs),
    async close() {
      log.close();
      await server.close();
    },
  };
}
