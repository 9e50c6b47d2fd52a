/** Anthropic `stop_reason`, mapped to ours. */
import type { FinishReason } from "@agentd/sdk/model";

/** Map `stop_reason` (`pause_turn` — a server tool paused — and unknown values are `other`). */
export function mapAnthropicFinishReason(reason: string | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool-calls";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}
