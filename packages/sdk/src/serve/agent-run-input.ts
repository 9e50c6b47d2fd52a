/**
 * What `agent.run` takes: an `instruction`, or — when prompts are served — a `prompt` name with its
 * `arguments`, expanded into the run's instruction. A wrong call (both, neither, an unknown prompt, a missing
 * required argument) is a tool execution error the caller can read and mend (tools spec, "Error Handling").
 */
import type { Tool } from "../wire/index.ts";
import { expandPrompt, promptArgumentsProblem, promptInstruction, type ServedPrompts } from "./served-prompts.ts";

const COMMON = {
  runId: { type: "string", description: "Idempotency id; a finished run with this id is returned, not repeated" },
  conversationId: {
    type: "string",
    description: "Continue this conversation of yours (created on first use): the model sees its earlier exchanges",
  },
  outputSchema: { type: "object", description: "JSON Schema the answer must satisfy" },
} as const;

/** The `inputSchema` of `agent.run`: with `prompt` and `arguments` when prompts are served. */
export function agentRunSchema(withPrompts: boolean): Tool["inputSchema"] {
  if (!withPrompts)
    return {
      type: "object",
      properties: { instruction: { type: "string", description: "What to do" }, ...COMMON },
      required: ["instruction"],
    };
  return {
    type: "object",
    properties: {
      instruction: { type: "string", description: "What to do (or give prompt instead)" },
      prompt: { type: "string", description: "The name of a served prompt (prompts/list) to run instead of an instruction" },
      arguments: { type: "object", additionalProperties: { type: "string" }, description: "With prompt: its arguments" },
      ...COMMON,
    },
  };
}

/** The run's instruction from `agent.run`'s arguments, or the one line saying what is wrong. */
export function agentRunInput(
  args: Record<string, unknown>,
  prompts: ServedPrompts | undefined,
): { instruction: string } | { error: string } {
  const hasInstruction = typeof args.instruction === "string";
  const name = args.prompt;
  if (name === undefined || !prompts)
    return hasInstruction ? { instruction: args.instruction as string } : { error: "agent.run needs an instruction" };
  if (hasInstruction) return { error: "agent.run takes an instruction or a prompt, not both" };
  if (typeof name !== "string") return { error: "prompt must be the name of a served prompt" };
  const prompt = prompts.get(name);
  if (!prompt) return { error: `no prompt ${name}; served prompts: ${prompts.names().join(", ") || "none"}` };
  const given = (args.arguments ?? {}) as Record<string, string>;
  const problem = promptArgumentsProblem(name, prompt, given);
  if (problem) return { error: problem };
  return { instruction: promptInstruction(expandPrompt(prompt, given)) };
}

/** What `agent.run`'s `conversationId` asks of the run: continue it, owned by the caller (docs/conversations.md). */
export interface ConversationRunOptions {
  conversation?: string;
  principal?: string;
}

/** The run options for `agent.run`'s `conversationId`, owned by `owner` (the caller's principal); none without it. */
export const conversationOf = (args: Record<string, unknown>, owner: string): ConversationRunOptions =>
  typeof args.conversationId === "string" && args.conversationId !== "" ? { conversation: args.conversationId, principal: owner } : {};
