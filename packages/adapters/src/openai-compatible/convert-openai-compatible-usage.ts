/** OpenAI-compatible usage, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { OpenAICompatibleUsage } from "./openai-compatible-api.ts";

/** Missing counts are 0 (local gateways often send none); a missing total is the sum. */
export function convertOpenAICompatibleUsage(usage: OpenAICompatibleUsage | undefined): Usage {
  const inputTokens = usage?.prompt_tokens ?? 0;
  const outputTokens = usage?.completion_tokens ?? 0;
  return { inputTokens, outputTokens, totalTokens: usage?.total_tokens ?? inputTokens + outputTokens };
}
