/**
 * The Gemini API's rule for thought signatures, as the fake gateway enforces it: a signature sent back
 * must be one this gateway served, unchanged, on the same function call; and while thinking is on, the
 * first function call of each model turn in the current turn (everything after the last user text) must
 * carry its signature. Messages follow the real API's wording.
 */
import { isObject, type ReasoningContext } from "./dialect.ts";
import type { Signer } from "./signer.ts";

/** A function call's signature. */
export const signFunctionCall = (signer: Signer, name: string, args: unknown) =>
  signer.sign(`gemini:${name}:${JSON.stringify(args ?? {})}`);

/** A camelCase or snake_case field. */
const field = (o: Record<string, unknown>, camel: string): unknown => o[camel] ?? o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

/** Whether a request turns thinking on (`thinkingConfig` with a budget other than 0). */
export function geminiThinking(body: Record<string, unknown>): boolean {
  const generation = field(body, "generationConfig");
  const config = isObject(generation) ? field(generation, "thinkingConfig") : undefined;
  return isObject(config) && field(config, "thinkingBudget") !== 0;
}

const partsOf = (content: unknown): Record<string, unknown>[] =>
  isObject(content) && Array.isArray(content.parts) ? content.parts.filter(isObject) : [];

/** The first problem with thought signatures in `body.contents`, or undefined. */
export function checkGeminiReasoning(body: Record<string, unknown>, context: ReasoningContext): string | undefined {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  let currentTurn = 0;
  contents.forEach((content, index) => {
    if (isObject(content) && (content.role ?? "user") === "user" && partsOf(content).some((p) => typeof p.text === "string"))
      currentTurn = index;
  });
  const thinking = geminiThinking(body);
  for (const [index, content] of contents.entries()) {
    if (!isObject(content) || content.role !== "model") continue;
    let first = true;
    for (const [at, part] of partsOf(content).entries()) {
      const call = field(part, "functionCall");
      if (!isObject(call)) continue;
      const signature = field(part, "thoughtSignature");
      if (signature !== undefined && !context.signer.verify(`gemini:${String(call.name)}:${JSON.stringify(call.args ?? {})}`, signature))
        return `contents[${index}].parts[${at}]: Thought signature is not valid.`;
      if (first && thinking && index > currentTurn && signature === undefined)
        return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(call.name)}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
      first = false;
    }
  }
  return undefined;
}
