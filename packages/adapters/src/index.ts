/**
 * @agentd/adapters — LLM dialect adapters implementing the SDK's `LanguageModel`: OpenAI-compatible
 * `/chat/completions` (OpenAI, vLLM, Ollama, LM Studio, gateways), OpenAI's Responses API, Anthropic
 * Messages, and native Gemini.
 * All take an injectable `fetch`, retry transient failures with backoff, time out, honour aborts, and
 * report failures as `AgentdError` (`E_UPSTREAM`, `E_TIMEOUT`, `E_ABORTED`) without ever echoing the key.
 *
 * @module @agentd/adapters
 */
export type { FetchFunction, ProviderSettings } from "./_internal/settings.ts";
export type { PromptCacheSettings, ThinkingSettings } from "./_internal/thinking.ts";
export { isNetworkError, isRetryableStatus, parseRetryAfter } from "./_internal/retry-policy.ts";
export { createModel, MODEL_DIALECTS, type CreateModelSettings, type ModelDialect } from "./create-model.ts";
export {
  createOpenAICompatible,
  OpenAICompatibleLanguageModel,
  type OpenAICompatibleSettings,
} from "./openai-compatible/openai-compatible-language-model.ts";
export {
  createOpenAIResponses,
  OpenAIResponsesLanguageModel,
  type OpenAIResponsesSettings,
} from "./openai-responses/responses-language-model.ts";
export { AnthropicLanguageModel, createAnthropic, type AnthropicSettings } from "./anthropic/anthropic-language-model.ts";
export { createGemini, GeminiLanguageModel, type GeminiSettings } from "./gemini/gemini-language-model.ts";
export { convertJsonSchemaToGemini } from "./gemini/convert-json-schema-to-gemini.ts";
