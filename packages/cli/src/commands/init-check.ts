/**
 * `agentd init`'s last step: one short request to the model the new file names, so a wrong endpoint, model
 * name or missing key shows now — not at the first run. The file is read the way `agentd run` reads it
 * (flags > environment > file, the API key from its variable), and the model built by the same factory.
 */
import { createModel } from "@agentd/adapters";
import { modelFromConfig, resolveConfig } from "@agentd/sdk";

/** How long the check waits for the model's answer. */
const CHECK_TIMEOUT_MS = 60_000;

/** The model's reply to one short request (its first line, shortened), or throws its one-line error. */
export async function checkModelAnswers(configPath: string): Promise<string> {
  const resolved = await resolveConfig({ configPath });
  const model = modelFromConfig(resolved.config, { createModel, apiKey: resolved.apiKey, apiKeyHint: resolved.apiKeyHint });
  const response = await model.generate({
    messages: [{ role: "user", content: "Reply with one short sentence to confirm you are reachable." }],
    maxOutputTokens: 64,
    signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
  });
  const text = response.content
    .flatMap((p) => (p.type === "text" ? [p.text] : []))
    .join("")
    .trim();
  const line = text.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line || "(an empty answer)";
}
