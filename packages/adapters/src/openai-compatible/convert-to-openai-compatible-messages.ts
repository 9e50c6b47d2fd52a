/**
 * Our conversation → OpenAI chat messages. With native tools, tool calls ride on the assistant message
 * and each result is a `tool` message. Without (a model with no tool calling, `supportsTools: false`),
 * calls are written back as the JSON actions the model produced and results become user turns, so the
 * same conversation works for both kinds of model. Reasoning goes back only when the model's rule says
 * so (`passBack`: the field to put it in), and only the reasoning this provider produced.
 */
import {
  type AssistantPart,
  type ModelMessage,
  type ReasoningPart,
  renderJsonAction,
  renderToolResultForJsonActions,
  type TextPart,
  type ToolCallPart,
} from "@agentd/sdk/model";
import type { OpenAICompatibleMessage } from "./openai-compatible-api.ts";

/** Marks a failed tool result in a dialect that has no error flag for it. */
export const TOOL_ERROR_PREFIX = "Error: ";

const textOf = (parts: AssistantPart[]) =>
  parts
    .filter((p): p is TextPart => p.type === "text")
    .map((p) => p.text)
    .join("");

/** How reasoning goes back: in which field, for which provider's parts. */
export interface ReasoningPassBack {
  field: "reasoning_content" | "reasoning";
  provider: string;
}

/** Convert messages; `nativeTools` false renders tool traffic as JSON-action text. */
export function convertToOpenAICompatibleMessages(
  messages: readonly ModelMessage[],
  nativeTools: boolean,
  passBack?: ReasoningPassBack,
): OpenAICompatibleMessage[] {
  const out: OpenAICompatibleMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
      case "user":
        out.push({ role: m.role, content: m.content });
        break;
      case "assistant": {
        const text = textOf(m.content);
        const calls = m.content.filter((p): p is ToolCallPart => p.type === "tool-call");
        const reasoning = passBack
          ? m.content
              .filter((p): p is ReasoningPart => p.type === "reasoning" && p.provider === passBack.provider)
              .map((p) => p.text)
              .join("")
          : "";
        const extra = passBack && reasoning !== "" ? { [passBack.field]: reasoning } : {};
        if (calls.length === 0) out.push({ role: "assistant", content: text, ...extra });
        else if (nativeTools)
          out.push({
            role: "assistant",
            content: text === "" ? null : text,
            tool_calls: calls.map((c) => ({
              id: c.toolCallId,
              type: "function",
              function: { name: c.toolName, arguments: JSON.stringify(c.input) },
            })),
            ...extra,
          });
        else {
          const actions = calls.map((c) => renderJsonAction({ action: "tool", tool: c.toolName, arguments: c.input }));
          out.push({ role: "assistant", content: [text, ...actions].filter((s) => s !== "").join("\n") });
        }
        break;
      }
      case "tool":
        if (nativeTools)
          for (const r of m.content)
            out.push({ role: "tool", tool_call_id: r.toolCallId, content: r.isError ? `${TOOL_ERROR_PREFIX}${r.output}` : r.output });
        else out.push({ role: "user", content: m.content.map(renderToolResultForJsonActions).join("\n\n") });
        break;
    }
  }
  return out;
}
