/**
 * The `prompts` block of `agentd.json`: named instruction templates that `agentd serve` offers as MCP
 * prompts (`prompts/list`, `prompts/get`, `completion/complete` for their arguments) and that `agent.run`
 * runs with `{ prompt, arguments }`. A prompt is one text (one user message) or a list of messages; `{{arg}}`
 * in a text is replaced by that argument's value. Every placeholder must name a declared argument, so a
 * typo is a configuration error at load, never an empty hole in a served prompt.
 */
import * as v from "valibot";

// `{{ name }}`: the same placeholder syntax as trigger instructions (triggers/template.ts).
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** The argument names a text's placeholders use, and whether a stray `{{`/`}}` remains. */
export function placeholdersOf(text: string): { names: string[]; malformed: boolean } {
  const names = [...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string);
  const rest = text.replace(PLACEHOLDER, "");
  return { names, malformed: rest.includes("{{") || rest.includes("}}") };
}

/** One argument of a served prompt. */
export const PromptArgumentConfigSchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[A-Za-z_][\w.-]*$/, "an argument name: letters, digits, _ . -, starting with a letter or _")),
  description: v.optional(v.string()),
  /** A `prompts/get` without it is refused (-32602); default false (an absent optional argument renders as ""). */
  required: v.optional(v.boolean()),
  /** Values `completion/complete` suggests, filtered by the typed prefix (case-insensitive). */
  completions: v.optional(v.array(v.string())),
});

/** One message of a served prompt. */
export const PromptMessageConfigSchema = v.strictObject({
  role: v.picklist(["user", "assistant"], '"user" or "assistant"'),
  text: v.string(),
});

type PromptInput = {
  arguments?: Array<{ name: string }>;
  text?: string;
  messages?: Array<{ text: string }>;
};

/** What is wrong with a prompt beyond its fields' shapes, as [field, message], or undefined. */
function promptProblem(p: PromptInput): [string, string] | undefined {
  const hasText = p.text !== undefined;
  const hasMessages = p.messages !== undefined;
  if (hasText === hasMessages)
    return [hasText ? "messages" : "text", 'give either "text" (one user message) or "messages", not both or neither'];
  const names = (p.arguments ?? []).map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) return ["arguments", `argument "${twice}" is declared twice`];
  const texts = hasText ? [p.text as string] : (p.messages ?? []).map((m) => m.text);
  for (const text of texts) {
    const { names: used, malformed } = placeholdersOf(text);
    const unknown = used.find((n) => !names.includes(n));
    const field = hasText ? "text" : "messages";
    if (unknown !== undefined)
      return [
        field,
        `placeholder {{${unknown}}} names no declared argument; declared: ${names.map((n) => `{{${n}}}`).join(", ") || "none (add it to arguments)"}`,
      ];
    if (malformed) return [field, "malformed placeholder (write {{name}} for an argument)"];
  }
  return undefined;
}

/** One served prompt. */
export const PromptConfigSchema = v.pipe(
  v.strictObject({
    title: v.optional(v.string()),
    /** Shown in `prompts/list` (and as the A2A skill's description): required, clients list prompts by it. */
    description: v.pipe(
      v.string("a description (shown to clients in prompts/list)"),
      v.minLength(1, "a description (shown to clients in prompts/list)"),
    ),
    arguments: v.optional(v.array(PromptArgumentConfigSchema)),
    /** The prompt as one user message. */
    text: v.optional(v.string()),
    /** The prompt as messages (user and assistant turns). */
    messages: v.optional(v.pipe(v.array(PromptMessageConfigSchema), v.minLength(1, "at least one message"))),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = promptProblem(dataset.value);
    if (!problem) return;
    const [key, message] = problem;
    const value = dataset.value as Record<string, unknown>;
    addIssue({ message, path: [{ type: "object", origin: "value", input: value, key, value: value[key] }] });
  }),
);

/** The `prompts` block: prompt name → prompt. */
export const PromptsConfigSchema = v.record(
  v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]+$/, "prompt names use letters, digits, _ . -")),
  PromptConfigSchema,
);

/** A validated served prompt (declared in ./types.ts, generated from this schema). */
export type { PromptConfig } from "./types.generated.ts";
