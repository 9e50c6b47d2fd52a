/**
 * Our conversation → Responses input items. System messages become `system` messages; assistant text an
 * `assistant` message; tool calls `function_call` items and results `function_call_output` items (a failed
 * result marked as chat completions marks it, the API has no error flag); reasoning this provider produced
 * goes back as `reasoning` items with their id and `encrypted_content` — the only way a reasoning model
 * keeps its reasoning across turns when nothing is stored (`store: false`). Reasoning without encrypted
 * content cannot be sent back unstored and is dropped. Without native tools, tool traffic is JSON-action text.
 */
import { type ModelMessage, renderJsonAction, renderToolResultForJsonActions } from "@agentd/sdk/model";
import { TOOL_ERROR_PREFIX } from "../openai-compatible/convert-to-openai-compatible-messages.ts";
import type { ResponsesInputItem } from "./responses-api.ts";

/** Convert messages; `provider` picks the reasoning parts to send back, `nativeTools` false renders tool traffic as text. */
export function convertToResponsesInput(messages: readonly ModelMessage[], provider: string, nativeTools: boolean): ResponsesInputItem[] {
  const out: ResponsesInputItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
      case "user":
        out.push({ role: m.role, content: m.content });
        break;
      case "assistant": {
        const actions: string[] = [];
        let text = "";
        const flushText = () => {
          if (text !== "") out.push({ role: "assistant", content: text });
          text = "";
        };
        for (const part of m.content) {
          if (part.type === "text") text += part.text;
          else if (part.type === "reasoning") {
            if (part.provider !== provider || part.itemId === undefined || part.redactedData === undefined) continue;
            flushText();
            out.push({
              type: "reasoning",
              id: part.itemId,
              summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
              encrypted_content: part.redactedData,
            });
          } else if (nativeTools) {
            flushText();
            out.push({ type: "function_call", call_id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input) });
          } else actions.push(renderJsonAction({ action: "tool", tool: part.toolName, arguments: part.input }));
        }
        if (actions.length > 0) text = [text, ...actions].filter((s) => s !== "").join("\n");
        flushText();
        break;
      }
      case "tool":
        if (nativeTools)
          for (const r of m.content)
            out.push({
              type: "function_call_output",
              call_id: r.toolCallId,
              output: r.isError ? `${TOOL_ERROR_PREFIX}${r.output}` : r.output,
            });
        else out.push({ role: "user", content: m.content.map(renderToolResultForJsonActions).join("\n\n") });
        break;
    }
  }
  return out;
}
