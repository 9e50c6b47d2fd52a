/**
 * In a terminal, `agentd run --prompt SERVER/NAME` asks for the required arguments the command line left
 * out (@clack/prompts, on stderr so stdout stays the result). Each question offers the server's completions
 * (`completion/complete` with the answers so far as context, completion spec "context.arguments") as a
 * list narrowed by what the person types; a typed value outside the list is accepted as typed.
 */
import { autocomplete, isCancel, text } from "@clack/prompts";
import type { PromptArgument } from "@agentd/sdk/wire";
import { forTerminal } from "../terminal-text.ts";

/** Suggestions for argument `name` starting with `prefix`, given the arguments answered so far. */
export type CompleteArgument = (name: string, prefix: string, context: Record<string, string>) => Promise<string[]>;

/** Asks for the `missing` arguments; resolves to their values, or undefined when the person cancels. */
export type AskPromptArguments = (
  prompt: string,
  missing: readonly PromptArgument[],
  known: Readonly<Record<string, string>>,
  complete: CompleteArgument,
) => Promise<Record<string, string> | undefined>;

const matches = (value: string, typed: string) => value.toLowerCase().startsWith(typed.toLowerCase());

/** The @clack/prompts asker, on stderr. */
export const askInTerminal: AskPromptArguments = async (prompt, missing, known, complete) => {
  const answers: Record<string, string> = {};
  for (const argument of missing) {
    // The names, description and completions are the server's text: shown escaped (terminal-text.ts).
    const message = forTerminal(`${prompt}: ${argument.name}${argument.description ? ` — ${argument.description}` : ""}`);
    const values = await complete(argument.name, "", { ...known, ...answers });
    const answer = values.length
      ? await autocomplete<string>({
          message,
          output: process.stderr,
          placeholder: "type to narrow the list, or a value of your own",
          options() {
            const typed = this.userInput;
            const listed = values.filter((v) => matches(v, typed)).map((v) => ({ value: v, label: forTerminal(v) }));
            return typed && !values.includes(typed) ? [...listed, { value: typed, hint: "as typed" }] : listed;
          },
          validate: (v) => (typeof v === "string" && v.length > 0 ? undefined : `${argument.name} is required`),
        })
      : await text({ message, output: process.stderr, validate: (v) => (v ? undefined : `${argument.name} is required`) });
    if (isCancel(answer)) return undefined;
    answers[argument.name] = String(answer);
  }
  return answers;
};
