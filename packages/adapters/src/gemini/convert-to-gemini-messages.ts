/**
 * Our conversation → Gemini `contents` + `systemInstruction`. Assistant turns are role `model`; tool
 * results are `functionResponse` parts in a `user` turn, one turn for all results of one model turn
 * (Gemini pairs responses with the calls of the turn before). A function response must be an object, so
 * our text output is wrapped: `{ result: text }`, or `{ error: text }` for a failed call.
 *
 * Thought signatures travel in the conversation, on the part they came with (a function call, a text, a
 * thought), and go back there: Gemini 3 refuses a function call of the current turn without its
 * signature. Thought parts from Gemini go back as they came; another provider's reasoning is dropped.
 */
import type { AssistantPart, ModelMessage } from "@agentd/sdk/model";
import type { GeminiContent, GeminiPart } from "./gemini-api.ts";

/** Prefix of the tool-call ids this adapter makes up (Gemini often gives none); they are not sent back. */
export const SYNTHETIC_ID_PREFIX = "gemini_call_";

/** The converted conversation. */
export interface GeminiPrompt {
  systemInstruction: { parts: Array<{ text: string }> } | undefined;
  contents: GeminiContent[];
}

const withSignature = <T extends GeminiPart>(part: T, signature: string | undefined): GeminiPart =>
  signature ? { ...part, thoughtSignature: signature } : part;

const realId = (id: string) => (id.startsWith(SYNTHETIC_ID_PREFIX) ? {} : { id });

function modelPart(p: AssistantPart): GeminiPart[] {
  switch (p.type) {
    case "text":
      return p.text === "" && !p.signature ? [] : [withSignature({ text: p.text }, p.signature)];
    case "tool-call":
      return [withSignature({ functionCall: { name: p.toolName, args: p.input, ...realId(p.toolCallId) } }, p.signature)];
    case "reasoning":
      return p.provider !== "gemini" ? [] : [withSignature({ text: p.text, thought: true }, p.signature)];
  }
}

/** Convert messages. */
export function convertToGeminiMessages(messages: readonly ModelMessage[]): GeminiPrompt {
  const system: Array<{ text: string }> = [];
  const contents: GeminiContent[] = [];
  // What the last content holds, so consecutive assistant turns (or tool results) merge into it.
  let lastKind: "user" | "assistant" | "tool" | undefined;
  for (const m of messages) {
    const last = contents[contents.length - 1];
    switch (m.role) {
      case "system":
        if (m.content !== "") system.push({ text: m.content });
        break;
      case "user":
        if (m.content === "") break;
        contents.push({ role: "user", parts: [{ text: m.content }] });
        lastKind = "user";
        break;
      case "assistant": {
        const parts = m.content.flatMap(modelPart);
        if (parts.length === 0) break;
        if (last && lastKind === "assistant") last.parts.push(...parts);
        else contents.push({ role: "model", parts });
        lastKind = "assistant";
        break;
      }
      case "tool": {
        const parts: GeminiPart[] = m.content.map((r) => ({
          functionResponse: {
            name: r.toolName,
            response: r.isError ? { error: r.output } : { result: r.output },
            ...realId(r.toolCallId),
          },
        }));
        if (parts.length === 0) break;
        if (last && lastKind === "tool") last.parts.push(...parts);
        else contents.push({ role: "user", parts });
        lastKind = "tool";
        break;
      }
    }
  }
  return { systemInstruction: system.length > 0 ? { parts: system } : undefined, contents };
}
