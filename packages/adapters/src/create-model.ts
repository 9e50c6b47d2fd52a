/**
 * One entry point from configuration to a model: `createModel({ dialect, baseURL, apiKey, model })`.
 * The dialect names match the config file and `AGENT_DIALECT`: `openai` (any OpenAI-compatible
 * `/chat/completions` endpoint), `responses` (OpenAI's `/responses`), `anthropic`, `gemini`.
 */
import { AgentdError, type LanguageModel } from "@agentd/sdk/model";
import type { ProviderSettings } from "./_internal/settings.ts";
import type { PromptCacheSettings, ThinkingSettings } from "./_internal/thinking.ts";
import { createAnthropic } from "./anthropic/anthropic-language-model.ts";
import { createGemini } from "./gemini/gemini-language-model.ts";
import { createOpenAICompatible } from "./openai-compatible/openai-compatible-language-model.ts";
import { createOpenAIResponses } from "./openai-responses/responses-language-model.ts";

/** The wire dialects an agent can speak. */
export type ModelDialect = "openai" | "responses" | "anthropic" | "gemini";

/** The dialects, for validating configuration and for help text. */
export const MODEL_DIALECTS: readonly ModelDialect[] = ["openai", "responses", "anthropic", "gemini"];

/** Settings of {@link createModel}: the shared ones plus each dialect's own (ignored by the others). */
export interface CreateModelSettings extends ProviderSettings {
  dialect: ModelDialect;
  /** openai: whether the model calls tools natively (default true). */
  supportsTools?: boolean;
  /** openai: ask for a usage chunk when streaming (default true). */
  includeUsage?: boolean;
  /** openai, responses: whether JSON Schema output (`response_format` / `text.format`) is accepted (default true). */
  structuredOutputs?: boolean;
  /** responses: ask for reasoning items' `encrypted_content` and send them back (default true). */
  encryptedReasoning?: boolean;
  /** responses: store responses and continue with `previous_response_id` (default false: nothing stored). */
  previousResponseId?: boolean;
  /** anthropic: default `max_tokens` (4096). */
  maxTokens?: number;
  /** anthropic: `anthropic-version` header (`2023-06-01`). */
  anthropicVersion?: string;
  /** Thinking / reasoning, mapped to each dialect's own fields. */
  thinking?: ThinkingSettings;
  /** anthropic: prompt-cache breakpoints (default on); the other dialects cache a stable prefix on their own. */
  promptCache?: PromptCacheSettings;
}

/**
 * Build a model for a dialect. Throws `E_CONFIG_INVALID` (one line, no secrets) for an unknown dialect or
 * an openai-compatible model without a base URL.
 *
 * Example:
 * {@includeCode ../../../examples/sdk-usage/api/testkit.examples.ts#createModel}
 */
export function createModel(settings: CreateModelSettings): LanguageModel {
  const { dialect, ...rest } = settings;
  switch (dialect) {
    case "openai": {
      if (!rest.baseURL)
        throw new AgentdError(
          "E_CONFIG_INVALID",
          "the openai dialect needs a base URL (AGENT_INTELLIGENCE), e.g. http://127.0.0.1:11434/v1",
        );
      const { promptCache: _automatic, ...openai } = rest;
      return createOpenAICompatible({ ...openai, baseURL: rest.baseURL });
    }
    case "responses": {
      const { promptCache: _automatic, ...responses } = rest;
      return createOpenAIResponses(responses);
    }
    case "anthropic":
      return createAnthropic(rest);
    case "gemini": {
      const { promptCache: _automatic, ...gemini } = rest;
      return createGemini(gemini);
    }
    default:
      throw new AgentdError("E_CONFIG_INVALID", `unknown model dialect "${String(dialect)}": expected one of ${MODEL_DIALECTS.join(", ")}`);
  }
}
