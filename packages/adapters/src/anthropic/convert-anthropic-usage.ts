/** Anthropic usage, mapped to ours. */
import type { Usage } from "@agentd/sdk/model";
import type { AnthropicUsage } from "./anthropic-api.ts";

/**
 * Input counts cache reads and writes too (Anthropic reports them apart from `input_tokens`); the split
 * is kept in `cacheReadTokens` / `cacheWriteTokens`. Thinking is part of `output_tokens` already.
 */
export function convertAnthropicUsage(usage: AnthropicUsage | undefined): Usage {
  const read = usage?.cache_read_input_tokens;
  const write = usage?.cache_creation_input_tokens;
  const inputTokens = (usage?.input_tokens ?? 0) + (write ?? 0) + (read ?? 0);
  const outputTokens = usage?.output_tokens ?? 0;
  const out: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  if (read !== undefined) out.cacheReadTokens = read;
  if (write !== undefined) out.cacheWriteTokens = write;
  if (usage?.thinking_tokens !== undefined) out.reasoningTokens = usage.thinking_tokens;
  return out;
}

/** Streams report usage twice (message_start, then message_delta): later non-missing counts win. */
export function mergeAnthropicUsage(a: AnthropicUsage | undefined, b: AnthropicUsage | undefined): AnthropicUsage | undefined {
  if (!b) return a;
  if (!a) return b;
  return {
    input_tokens: b.input_tokens ?? a.input_tokens,
    output_tokens: b.output_tokens ?? a.output_tokens,
    cache_creation_input_tokens: b.cache_creation_input_tokens ?? a.cache_creation_input_tokens,
    cache_read_input_tokens: b.cache_read_input_tokens ?? a.cache_read_input_tokens,
    thinking_tokens: b.thinking_tokens ?? a.thinking_tokens,
  };
}
