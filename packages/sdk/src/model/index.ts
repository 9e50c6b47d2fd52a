/**
 * `@agentd/sdk/model`: what a model adapter needs, and nothing of the agent, the supervisor or the
 * servers — the `LanguageModel` interface and its message, stream and usage types; the typed errors a
 * model reports with (`AgentdError`: `E_UPSTREAM`, `E_TIMEOUT`, `E_ABORTED`, …); and the small tools
 * every HTTP dialect uses: an SSE parser, the bounded body reader and the redirect policy every outbound
 * client shares, the JSON-action shape for models without native tools, backoff and long timers for
 * retries, and the logger interface. `@agentd/adapters` imports only this entry.
 *
 * @module @agentd/sdk/model
 */
export type {
  TextPart,
  ReasoningPart,
  AssistantPart,
  ToolCallPart,
  ToolResultPart,
  ModelMessage,
  ModelToolDefinition,
  ToolChoice,
  ModelRequest,
  FinishReason,
  Usage,
  ModelResponse,
  ModelStreamPart,
  LanguageModel,
} from "./language-model.ts";
export { emptyUsage, addUsage, USAGE_DETAIL_KEYS } from "./language-model.ts";
export { AgentdError, type LocalErrorCode } from "../wire/errors.ts";
export { createSseParser, type SseEvent, type SseParser, type SseCallbacks } from "../wire/sse-parse.ts";
export {
  extractAction,
  extractJsonObjects,
  renderJsonAction,
  renderToolResultForJsonActions,
  jsonActionSystemPrompt,
  type JsonAction,
} from "../loop/json-action.ts";
export { BODY_LIMITS, bodyTooLarge, readBodyPrefix, readBoundedText, shownUrl, type BodyBound } from "../_internal/bounded-body.ts";
export { fetchFollowingRedirects, type RedirectPolicy } from "../_internal/redirects.ts";
export { backoffDelay, type BackoffPolicy } from "../_internal/backoff.ts";
export { setLongTimeout, type CancelTimer } from "../_internal/timer.ts";
export { memoryLogger, type Logger, type LogLevel, type LogRecord } from "../log.ts";
