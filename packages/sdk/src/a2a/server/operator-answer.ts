/**
 * The operator's answer to a question an MCP server asked through the `operator` elicitation policy: a
 * follow-up message on the task that is `input-required`. A data part (or a text part holding a JSON
 * object) is the content, accepted once it satisfies the requested schema; the text `decline` or `cancel`
 * (or `metadata["agentd.dev/elicitation-action"]`) declines or cancels. The content is never logged.
 */
import { jsonTooDeep } from "../../wire/json-depth.ts";
import { validateJsonSchema } from "../../_internal/json-schema.ts";
import { A2aError, type Message, type Part } from "../shared/types.ts";
import type { ElicitResult } from "../../wire/index.ts";

/** The metadata key a message may carry to say decline or cancel explicitly. */
export const ELICITATION_ACTION_KEY = "agentd.dev/elicitation-action";

/** The status message parts of a question: its words, then the requested schema as a data part. */
export function questionParts(message: string, requestedSchema: Record<string, unknown>, server: string): Part[] {
  return [
    { text: message },
    {
      data: {
        requestedSchema,
        server,
        answer: "send a message on this task (same taskId and contextId) whose data part is the content, or the text 'decline' or 'cancel'",
      },
      mediaType: "application/json",
    },
  ];
}

/** The elicitation result a follow-up message gives, or InvalidParams saying what to fix. */
export function answerOf(message: Message, requestedSchema: Record<string, unknown>): ElicitResult {
  const said = message.metadata?.[ELICITATION_ACTION_KEY];
  const text = message.parts
    .map((p) => p.text ?? "")
    .join("")
    .trim();
  const word = typeof said === "string" ? said : /^(decline|cancel)$/i.test(text) ? text.toLowerCase() : undefined;
  if (word === "decline" || word === "cancel") return { action: word };
  if (word !== undefined && word !== "accept")
    throw new A2aError("InvalidParams", `${ELICITATION_ACTION_KEY} must be "accept", "decline" or "cancel"`);
  const content = contentOf(message.parts, text);
  if (!content)
    throw new A2aError(
      "InvalidParams",
      "the answer needs a data part with the requested fields (or a text part holding a JSON object), or the text 'decline' or 'cancel'",
    );
  const check = validateJsonSchema(requestedSchema, content);
  if (!check.valid)
    throw new A2aError("InvalidParams", `the answer does not satisfy the requested schema: ${check.errors.slice(0, 3).join("; ")}`);
  return { action: "accept", content: content as ElicitResult["content"] };
}

function contentOf(parts: Part[], text: string): Record<string, unknown> | undefined {
  const data = parts.find((p) => p.data !== undefined)?.data;
  if (isObject(data)) return data;
  if (!text.startsWith("{") || jsonTooDeep(text)) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
