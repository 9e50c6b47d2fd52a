/**
 * Prompts the served agent offers (prompts as a server): named instruction templates from the configuration,
 * listed by `prompts/list`, expanded by `prompts/get`, their arguments completed by `completion/complete`
 * from configured values, and run by `agent.run` with `{ prompt, arguments }`.
 *
 * An argument's value is substituted as given: a caller who may run a prompt may equally send the
 * expanded text as an instruction, so it gains nothing by writing instructions into an argument.
 */
import type { GetPromptResult, Prompt } from "../wire/index.ts";
import type { McpServer } from "../mcp/server/server.ts";
import type { Completers, Registered } from "../mcp/server/registry.ts";
import { invalidParams } from "../wire/errors.ts";

/** One argument of a served prompt. */
export interface ServedPromptArgument {
  name: string;
  description?: string;
  /** `prompts/get` and `agent.run` refuse the prompt without it. */
  required?: boolean;
  /** What `completion/complete` suggests, filtered by the typed prefix. */
  completions?: string[];
}

/** A served prompt: one text (a user message) or messages; `{{arg}}` placeholders name its arguments. */
export interface ServedPrompt {
  title?: string;
  description: string;
  arguments?: ServedPromptArgument[];
  text?: string;
  messages?: Array<{ role: "user" | "assistant"; text: string }>;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** What is wrong with `args` for `prompt` (a missing required or an undeclared argument), or undefined. */
export function promptArgumentsProblem(name: string, prompt: ServedPrompt, args: Record<string, string>): string | undefined {
  const declared = prompt.arguments ?? [];
  const missing = declared.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
  if (missing.length) return `prompt ${name} is missing the required argument${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`;
  const unknown = Object.keys(args).filter((k) => !declared.some((a) => a.name === k));
  if (unknown.length)
    return `prompt ${name} has no argument ${unknown.join(", ")}; its arguments: ${declared.map((a) => a.name).join(", ") || "none"}`;
  return undefined;
}

/** The prompt's messages with its arguments substituted (an absent optional argument is ""). */
export function expandPrompt(prompt: ServedPrompt, args: Record<string, string>): GetPromptResult {
  const fill = (text: string) => text.replace(PLACEHOLDER, (_, arg: string) => args[arg] ?? "");
  const messages = prompt.messages ?? [{ role: "user" as const, text: prompt.text ?? "" }];
  return {
    description: prompt.description,
    messages: messages.map((m) => ({ role: m.role, content: { type: "text" as const, text: fill(m.text) } })),
  };
}

/** The run instruction a prompt's expansion makes: its texts in order, assistant turns marked as such. */
export function promptInstruction(result: GetPromptResult): string {
  return result.messages
    .map((m) => {
      const text = m.content.type === "text" ? m.content.text : `[${m.content.type} content]`;
      return m.role === "assistant" ? `(assistant) ${text}` : text;
    })
    .join("\n\n");
}

/** Configured values that start with `prefix` (case-insensitively), in their configured order. */
export function completeFrom(values: readonly string[], prefix: string): string[] {
  const p = prefix.toLowerCase();
  return values.filter((v) => v.toLowerCase().startsWith(p));
}

/** The MCP `Prompt` a served prompt lists as. */
export function promptDefinition(name: string, prompt: ServedPrompt): Prompt {
  return {
    name,
    title: prompt.title,
    description: prompt.description,
    arguments: prompt.arguments?.length
      ? prompt.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required || undefined }))
      : undefined,
  };
}

/**
 * The prompts registered on a server, replaceable as a whole: a replacement removes and adds
 * registrations, so the server sends `notifications/prompts/list_changed` to its sessions.
 */
export class ServedPrompts {
  private prompts: Record<string, ServedPrompt> = {};
  private readonly registered: Array<Registered<Prompt>> = [];

  constructor(private readonly server: McpServer) {}

  /** The prompt named `name`, if served. */
  get(name: string): ServedPrompt | undefined {
    return Object.hasOwn(this.prompts, name) ? this.prompts[name] : undefined;
  }

  /** The served prompts as they are now. */
  all(): Readonly<Record<string, ServedPrompt>> {
    return this.prompts;
  }

  /** The served prompts' names. */
  names(): string[] {
    return Object.keys(this.prompts);
  }

  /** Serve exactly `prompts` from now on. */
  set(prompts: Record<string, ServedPrompt>): void {
    for (const r of this.registered.splice(0)) r.remove();
    this.prompts = { ...prompts };
    for (const [name, prompt] of Object.entries(prompts)) {
      const complete: Completers = {};
      for (const a of prompt.arguments ?? [])
        if (a.completions?.length) complete[a.name] = (value) => completeFrom(a.completions as string[], value);
      this.registered.push(
        this.server.prompt(
          promptDefinition(name, prompt),
          // Prompts spec, "Error Handling": missing required (checked by the server too) or undeclared arguments are -32602.
          (args) => {
            const problem = promptArgumentsProblem(name, prompt, args);
            if (problem) throw invalidParams(problem);
            return expandPrompt(prompt, args);
          },
          { complete },
        ),
      );
    }
  }
}
