/**
 * The Anthropic API's rules for thinking and prompt caching, as the fake gateway enforces them: thinking
 * configuration (`budget_tokens` >= 1024 and below `max_tokens`, no temperature but 1, no forced tool
 * choice), thinking blocks sent back unchanged (signatures checked), a tool-use turn keeping its thinking
 * while thinking is on, and at most 4 `cache_control` breakpoints with a known TTL. Messages follow the
 * real API's wording.
 */
import { randomId } from "./answer.ts";
import { isObject, type ReasoningContext } from "./dialect.ts";
import type { Signer } from "./signer.ts";

const DOCS = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** The signature of a thinking block's text. */
export const signThinking = (signer: Signer, thinking: string) => signer.sign(`thinking:${thinking}`);

/** Opaque, verifiable data for a redacted_thinking block. */
export function redactedData(signer: Signer): string {
  const nonce = randomId("", 24);
  return `${nonce}:${signer.sign(`redacted:${nonce}`)}`;
}

const redactedValid = (signer: Signer, data: unknown) => {
  if (typeof data !== "string") return false;
  const at = data.indexOf(":");
  return at > 0 && signer.verify(`redacted:${data.slice(0, at)}`, data.slice(at + 1));
};

/** Whether a request turns thinking on. */
export const thinkingEnabled = (body: Record<string, unknown>) =>
  isObject(body.thinking) && (body.thinking.type === "enabled" || body.thinking.type === "adaptive");

function checkConfig(body: Record<string, unknown>): string | undefined {
  const thinking = body.thinking;
  if (thinking === undefined) return undefined;
  if (!isObject(thinking) || !["enabled", "adaptive", "disabled"].includes(thinking.type as string))
    return 'thinking: Input tag does not match any of the expected tags: "enabled", "disabled", "adaptive"';
  if (thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (!Number.isInteger(budget) || (budget as number) < 1024)
      return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
    if ((body.max_tokens as number) <= (budget as number))
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}#max-tokens-and-context-window-size`;
  }
  if (!thinkingEnabled(body)) return undefined;
  if (body.temperature !== undefined && body.temperature !== 1)
    return `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. ${DOCS}#feature-compatibility`;
  const choice = body.tool_choice;
  if (isObject(choice) && (choice.type === "any" || choice.type === "tool"))
    return "Thinking may not be enabled when tool_choice forces tool use.";
  return undefined;
}

function checkBlocks(messages: unknown[], signer: Signer): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    for (const [j, block] of message.content.entries()) {
      if (!isObject(block)) continue;
      if (
        block.type === "thinking" &&
        (typeof block.thinking !== "string" || !signer.verify(`thinking:${block.thinking}`, block.signature))
      )
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      if (block.type === "redacted_thinking" && !redactedValid(signer, block.data))
        return `messages.${i}.content.${j}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  return undefined;
}

/** With thinking on, the assistant turn a trailing tool_result answers must open with its thinking. */
function checkToolUseTurn(messages: unknown[]): string | undefined {
  const last = messages.at(-1);
  const answersTools = isObject(last) && Array.isArray(last.content) && last.content.some((b) => isObject(b) && b.type === "tool_result");
  if (!answersTools) return undefined;
  const index = messages.length - 2;
  const turn = messages[index];
  const first = isObject(turn) && Array.isArray(turn.content) ? turn.content[0] : undefined;
  const type = isObject(first) ? String(first.type) : "text";
  if (type === "thinking" || type === "redacted_thinking") return undefined;
  return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${DOCS}`;
}

function checkCacheControl(body: Record<string, unknown>): string | undefined {
  let found = 0;
  let badTtl: unknown;
  JSON.stringify(body, (key, value) => {
    if (key === "cache_control") {
      found++;
      if (!isObject(value) || value.type !== "ephemeral") badTtl ??= "type";
      else if (value.ttl !== undefined && value.ttl !== "5m" && value.ttl !== "1h") badTtl ??= value.ttl;
    }
    return value;
  });
  if (found > 4) return `A maximum of 4 blocks with cache_control may be provided. Found ${found}.`;
  if (badTtl === "type") return 'cache_control.type: Input should be "ephemeral"';
  if (badTtl !== undefined) return `cache_control.ttl: Input should be '5m' or '1h', got ${JSON.stringify(badTtl)}`;
  return undefined;
}

/** All of the above, first problem first. */
export function checkAnthropicReasoning(body: Record<string, unknown>, context: ReasoningContext): string | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return (
    checkConfig(body) ??
    checkCacheControl(body) ??
    checkBlocks(messages, context.signer) ??
    (thinkingEnabled(body) ? checkToolUseTurn(messages) : undefined)
  );
}
