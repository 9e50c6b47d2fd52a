/**
 * OpenAI-compatible servers' rules for reasoning sent back in assistant messages, chosen per gateway
 * (`reasoningPassBack`): `ignore` (vLLM, Ollama), `forbid` (DeepSeek's reasoner refuses
 * `reasoning_content` in input), `require` (DeepSeek's thinking mode with tools wants the reasoning of a
 * tool-call turn back, unchanged).
 */
import { isObject, type ReasoningContext } from "./dialect.ts";

const FIELDS = ["reasoning_content", "reasoning"] as const;

/** The first problem with the reasoning in `body.messages`, or undefined. */
export function checkOpenAiReasoning(body: Record<string, unknown>, context: ReasoningContext): string | undefined {
  const rule = context.options.reasoningPassBack ?? "ignore";
  if (rule === "ignore" || !Array.isArray(body.messages)) return undefined;
  const field = context.options.reasoningField ?? "reasoning_content";
  for (const [index, message] of body.messages.entries()) {
    if (!isObject(message) || message.role !== "assistant") continue;
    const sent = FIELDS.find((f) => message[f] !== undefined && message[f] !== null);
    if (rule === "forbid" && sent !== undefined)
      return `messages[${index}]: the ${sent} field is an intermediate result and must not be sent back in input messages; remove ${sent} from the assistant message`;
    if (rule === "require" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const value = message[field];
      if (typeof value !== "string")
        return `messages[${index}]: missing \`${field}\` field in the assistant message with tool_calls; pass back the reasoning of a tool-call turn`;
      if (!context.served.has(value)) return `messages[${index}].${field}: does not match the reasoning this server returned`;
    }
  }
  return undefined;
}
