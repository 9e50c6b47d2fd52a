/** The Responses API's `status` and `incomplete_details.reason`, mapped to our finish reason. */
import type { FinishReason } from "@agentd/sdk/model";

/**
 * `completed` is a stop, or tool calls when the output holds function calls (the API has no separate
 * word for them); `incomplete` says why (`max_output_tokens`, `content_filter`); `failed` is an error.
 */
export function mapResponsesFinishReason(
  status: string | undefined,
  incompleteReason: string | undefined,
  hasToolCalls: boolean,
): FinishReason {
  switch (status) {
    case "completed":
      return hasToolCalls ? "tool-calls" : "stop";
    case "incomplete":
      return incompleteReason === "max_output_tokens" ? "length" : incompleteReason === "content_filter" ? "content-filter" : "other";
    case "failed":
      return "error";
    default:
      return hasToolCalls ? "tool-calls" : "other";
  }
}
