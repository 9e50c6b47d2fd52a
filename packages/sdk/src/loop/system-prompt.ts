/**
 * The system message of a run: the caller's instructions, how to give up (run-failure.ts), the rule that
 * tool output is data, the tool catalogue and action protocol for models without native tool calling, and
 * the output shape when one is required. Built once from trusted inputs only; nothing a tool returns ever lands here.
 */
import type { ToolMode } from "./events.ts";
import { UNTRUSTED_DATA_NOTICE } from "./fence.ts";
import { jsonActionSystemPrompt } from "../model/json-action.ts";
import type { ModelToolDefinition } from "../model/language-model.ts";
import { GIVE_UP_INSTRUCTION } from "./run-failure.ts";
import { outputInstruction } from "./structured-output.ts";

/** Inputs of the system message. */
export interface SystemPromptInput {
  instructions?: string;
  mode: ToolMode;
  /** In JSON-action mode, the tools to describe (the model names them by these names). */
  tools: readonly ModelToolDefinition[];
  outputSchema?: Record<string, unknown>;
}

/** Build the system message text. */
export function buildSystemPrompt(p: SystemPromptInput): string {
  const parts: string[] = [];
  if (p.instructions?.trim()) parts.push(p.instructions.trim());
  // A JSON-action model gives up with its own action (in the protocol); a native tool caller by a word.
  if (p.mode === "json-action") parts.push(jsonActionSystemPrompt(p.tools));
  else parts.push(GIVE_UP_INSTRUCTION);
  parts.push(UNTRUSTED_DATA_NOTICE);
  if (p.outputSchema) {
    parts.push(
      p.mode === "json-action"
        ? `The "result" of your final action must be a JSON value (not a string containing JSON) that validates against this JSON Schema:\n${JSON.stringify(p.outputSchema)}`
        : outputInstruction(p.outputSchema),
    );
  }
  return parts.join("\n\n");
}
