/** The OpenAI `finish_reason` vocabulary, mapped to ours. */
import type { FinishReason } from "@agentd/sdk/model";

/**
 * Map `finish_reason`. `function_call` is the legacy name of `tool_calls`. A missing reason (gateways
 * that never fill it in) is `other`; the caller upgrades `stop` to `tool-calls` when calls were made,
 * because Ollama and some vLLM builds answer `stop` even then.
 */
export function mapOpenAICompatibleFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case "stop":
    case "end_turn":
      return "stop";
    case "length":
    case "max_tokens":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "content-filter";
    case "error":
      return "error";
    default:
      return "other";
  }
}
