/**
 * The `model` block of `agentd.json`: the endpoint, the dialect it speaks, the model name, the API key's
 * source, prices, reasoning and prompt-cache settings.
 */
import * as v from "valibot";
import { duration, nonNegative, positiveInt, stringMap } from "./schema-values.ts";

/** Which LLM dialect the model endpoint speaks. */
export const DialectSchema = v.picklist(
  ["openai", "responses", "anthropic", "gemini"],
  'one of "openai", "responses", "anthropic", "gemini"',
);

/** The `model` block: the endpoint (`intelligence`), dialect, model name, where the API key comes from, prices, reasoning and prompt-cache settings. */
export const ModelConfigSchema = v.strictObject({
  /** The model endpoint URL (OpenAI-compatible base such as http://127.0.0.1:11434/v1, or the provider's). */
  intelligence: v.optional(v.pipe(v.string(), v.url("a URL such as http://127.0.0.1:11434/v1"))),
  dialect: v.optional(DialectSchema),
  name: v.optional(v.pipe(v.string(), v.minLength(1, "a model name"))),
  /** Name of the environment variable holding the API key (the key itself never goes in the file). */
  apiKeyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name"))),
  /** Whether the model calls tools natively (default true); false uses the JSON action shape. */
  nativeTools: v.optional(v.boolean()),
  /** Per-request timeout. */
  timeout: v.optional(duration),
  maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10))),
  /**
   * Most bytes read of one answer (default 67108864, 64 MiB): the JSON body, or all the events of one streamed
   * answer. Past it the read stops and the run fails (exit 4) naming the endpoint and the limit.
   */
  maxResponseBytes: v.optional(positiveInt),
  maxOutputTokens: v.optional(positiveInt),
  temperature: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(2))),
  /** Prices in USD per million tokens, for the cost budget; cache reads/writes and reasoning may have their own. */
  prices: v.optional(
    v.strictObject({
      inputPerMTokUsd: nonNegative,
      outputPerMTokUsd: nonNegative,
      cacheReadPerMTokUsd: v.optional(nonNegative),
      cacheWritePerMTokUsd: v.optional(nonNegative),
      reasoningPerMTokUsd: v.optional(nonNegative),
    }),
  ),
  /** Thinking / reasoning: on or off, a token budget, adaptive, an effort, and (openai) how reasoning goes back. */
  thinking: v.optional(
    v.strictObject({
      enabled: v.optional(v.boolean()),
      budgetTokens: v.optional(positiveInt),
      adaptive: v.optional(v.boolean()),
      effort: v.optional(
        v.picklist(["minimal", "low", "medium", "high", "xhigh", "max"], 'one of "minimal", "low", "medium", "high", "xhigh", "max"'),
      ),
      passBack: v.optional(v.picklist(["none", "reasoning_content", "reasoning"], 'one of "none", "reasoning_content", "reasoning"')),
    }),
  ),
  /**
   * responses: store responses at the provider and continue each conversation with `previous_response_id`
   * (default false: nothing stored, the whole conversation sent, reasoning passed back encrypted).
   */
  previousResponseId: v.optional(v.boolean()),
  /** Anthropic prompt-cache breakpoints (on by default) and their lifetime. */
  promptCache: v.optional(
    v.strictObject({ enabled: v.optional(v.boolean()), ttl: v.optional(v.picklist(["5m", "1h"], 'one of "5m", "1h"')) }),
  ),
  headers: v.optional(stringMap),
});
