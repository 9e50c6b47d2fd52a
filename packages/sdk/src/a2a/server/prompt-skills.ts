/**
 * Served prompts on the A2A surface: one card skill per configured prompt beside "run", and a message
 * naming a prompt — a data part `{ "prompt": NAME, "arguments": { … } }` — runs that prompt's expansion as
 * the task's instruction, checked as `prompts/get` checks it. A2A messages name no skill, so the data part
 * is how a client picks one; the skill's description says so.
 */
import { A2aError, type AgentSkill, type Message } from "../shared/types.ts";
import { expandPrompt, promptArgumentsProblem, promptInstruction, type ServedPrompt } from "../../serve/served-prompts.ts";

/** The card skill of each served prompt (`prompt:NAME`). */
export function promptSkills(prompts: Readonly<Record<string, ServedPrompt>>): AgentSkill[] {
  return Object.entries(prompts).map(([name, p]) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? "" : "?"}`);
    const example = Object.fromEntries((p.arguments ?? []).filter((a) => a.required).map((a) => [a.name, a.completions?.[0] ?? "…"]));
    return {
      id: `prompt:${name}`,
      name: p.title ?? name,
      description: `${p.description} — send a data part {"prompt": "${name}", "arguments": {${args.map((a) => `"${a.replace("?", "")}"`).join(", ")}}}${args.length ? ` (arguments: ${args.join(", ")})` : ""}.`,
      tags: ["agentd", "prompt"],
      examples: [JSON.stringify({ prompt: name, arguments: example })],
      inputModes: ["application/json"],
      outputModes: ["text/plain", "application/json"],
    };
  });
}

/**
 * The instruction of a message that names a served prompt, or undefined when it names none (its text is
 * then run as it is). An unknown prompt or arguments `prompts/get` would refuse are `InvalidParams`.
 */
export function promptInstructionOf(
  message: Message,
  lookup: ((name: string) => ServedPrompt | undefined) | undefined,
): string | undefined {
  // Without served prompts a data part is data, run as its JSON text (as before prompts existed).
  if (!lookup) return undefined;
  const part = message.parts.find((p) => isObject(p.data) && typeof p.data.prompt === "string");
  if (!part || !isObject(part.data)) return undefined;
  const name = part.data.prompt as string;
  const prompt = lookup(name);
  if (!prompt)
    throw new A2aError("InvalidParams", `no prompt named ${name.slice(0, 80)} is served here (the card's prompt:… skills list them)`);
  const raw = part.data.arguments ?? {};
  if (!isObject(raw) || Object.values(raw).some((v) => typeof v !== "string"))
    throw new A2aError("InvalidParams", `prompt ${name}: "arguments" must be an object of strings`);
  const args = raw as Record<string, string>;
  const problem = promptArgumentsProblem(name, prompt, args);
  if (problem) throw new A2aError("InvalidParams", problem);
  return promptInstruction(expandPrompt(prompt, args));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
