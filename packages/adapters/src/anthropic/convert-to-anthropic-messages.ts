/**
 * Our conversation → Anthropic Messages. System text goes to the separate `system` field; tool results
 * are `tool_result` blocks inside a user message, and consecutive messages of one role merge into one
 * (several tool results, or results followed by the user's next words, become a single user turn, as the
 * API wants the results of one assistant turn together and first). Reasoning parts this provider made
 * go back as `thinking` / `redacted_thinking` blocks, unchanged and in their place: with thinking on, the
 * API refuses a tool-use turn whose thinking was dropped. Another provider's reasoning is dropped.
 */
import type { AssistantPart, ModelMessage } from "@agentd/sdk/model";
import type { AnthropicContentBlock, AnthropicMessage } from "./anthropic-api.ts";

/** The converted conversation. */
export interface AnthropicPrompt {
  system: string | undefined;
  messages: AnthropicMessage[];
}

function assistantBlock(p: AssistantPart): AnthropicContentBlock[] {
  switch (p.type) {
    case "text":
      return p.text === "" ? [] : [{ type: "text", text: p.text }];
    case "tool-call":
      return [{ type: "tool_use", id: p.toolCallId, name: p.toolName, input: p.input }];
    case "reasoning":
      if (p.provider !== "anthropic") return [];
      if (p.redactedData !== undefined) return [{ type: "redacted_thinking", data: p.redactedData }];
      return p.signature === undefined ? [] : [{ type: "thinking", thinking: p.text, signature: p.signature }];
  }
}

/** Convert messages. Empty text is dropped: the API rejects empty text blocks. */
export function convertToAnthropicMessages(messages: readonly ModelMessage[]): AnthropicPrompt {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  const append = (role: "user" | "assistant", blocks: AnthropicContentBlock[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        if (m.content !== "") system.push(m.content);
        break;
      case "user":
        append("user", m.content === "" ? [] : [{ type: "text", text: m.content }]);
        break;
      case "assistant":
        append("assistant", m.content.flatMap(assistantBlock));
        break;
      case "tool":
        append(
          "user",
          m.content.map((r) => ({
            type: "tool_result" as const,
            tool_use_id: r.toolCallId,
            content: r.output,
            is_error: r.isError || undefined,
          })),
        );
        break;
    }
  }
  // Tool results must open the user turn that answers a tool_use turn.
  for (const m of out) if (m.role === "user") m.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages: out };
}
