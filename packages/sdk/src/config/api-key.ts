/**
 * Which API key a run sends, and from where. The order: the caller's own (`apiKey` option), `AGENT_API_KEY`,
 * the variable `model.apiKeyEnv` names, then the dialect's conventional variable — `OPENAI_API_KEY` (openai,
 * responses),
 * `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` then `GOOGLE_API_KEY` — the ones every peer reads. Where the key came
 * from (a variable's name, never its value) is said when the provider refuses it (401/403), or that none
 * was set and where agentd looked.
 */
import type { ModelConfig } from "./types.generated.ts";

/** The conventional API-key variables of each dialect, in the order they are read. */
export const DIALECT_API_KEY_VARIABLES: Readonly<Record<NonNullable<ModelConfig["dialect"]>, readonly string[]>> = Object.freeze({
  openai: ["OPENAI_API_KEY"],
  responses: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  gemini: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
});

/** The key chosen, and a sentence on where it came from (said beside a 401/403, never the value). */
export interface ApiKeyChoice {
  apiKey?: string;
  /** "the API key came from OPENAI_API_KEY", or "no API key was set (looked in AGENT_API_KEY, OPENAI_API_KEY)". */
  hint: string;
}

/** The variables read for `model`, in order. */
export function apiKeyVariables(model: Pick<ModelConfig, "dialect" | "apiKeyEnv"> | undefined): string[] {
  const names = ["AGENT_API_KEY", ...(model?.apiKeyEnv ? [model.apiKeyEnv] : []), ...DIALECT_API_KEY_VARIABLES[model?.dialect ?? "openai"]];
  return [...new Set(names)];
}

/** Choose the key (see the module header). `given` is a key handed over directly, not from a variable. */
export function chooseApiKey(
  model: Pick<ModelConfig, "dialect" | "apiKeyEnv"> | undefined,
  env: Record<string, string | undefined>,
  given?: string,
): ApiKeyChoice {
  if (given) return { apiKey: given, hint: "the API key was given by the caller" };
  const names = apiKeyVariables(model);
  for (const name of names) {
    const value = env[name];
    if (value) return { apiKey: value, hint: `the API key came from ${name}` };
  }
  return { hint: `no API key was set (looked in ${names.join(", ")})` };
}
