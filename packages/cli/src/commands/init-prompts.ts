/**
 * The interactive side of `agentd init` (@clack/prompts): one question per setting, each defaulting to
 * what the flags said or to a sensible local setup. Resolves to undefined when the person cancels.
 */
import { cancel, confirm, intro, isCancel, select, text } from "@clack/prompts";
import {
  checkKeyEnv,
  checkServerName,
  checkUrl,
  defaultsFor,
  guessDialect,
  serverEntry,
  type Dialect,
  type InitAnswers,
} from "./init-config.ts";

/** What the flags already said (each becomes the prompt's default). */
export type InitSeed = Partial<Omit<InitAnswers, "servers">> & { servers: InitAnswers["servers"] };

class Cancelled extends Error {}

const MODEL_EXAMPLES: Record<Dialect, string> = {
  openai: "e.g. gpt-4.1-mini",
  responses: "e.g. gpt-5-mini",
  anthropic: "e.g. claude-sonnet-4-5",
  gemini: "e.g. gemini-2.5-flash",
};

/** The prompt's value, or stop the whole flow when the person pressed Ctrl-C / Esc. */
function answered<T>(value: T): Exclude<T, symbol> {
  if (isCancel(value)) throw new Cancelled();
  return value as Exclude<T, symbol>;
}

const ask = async (
  message: string,
  options: { fallback?: string; placeholder?: string; check?: (v: string | undefined) => string | undefined },
) =>
  answered(
    await text({
      message,
      ...(options.fallback
        ? { defaultValue: options.fallback, placeholder: options.fallback }
        : options.placeholder
          ? { placeholder: options.placeholder }
          : {}),
      // Validation sees the raw input; empty input takes the default afterwards, so it is fine when there is one.
      validate: (v) => (!v && options.fallback ? undefined : options.check?.(v || undefined)),
    }),
  ).trim();

/** Ask for every setting. Undefined when cancelled. */
export async function askAnswers(seed: InitSeed): Promise<InitAnswers | undefined> {
  intro("agentd init — writes agentd.json (the API key itself is never written)");
  try {
    const dialect = answered(
      await select<Dialect>({
        message: "Which API does the model speak?",
        initialValue: seed.dialect ?? guessDialect(seed.intelligence),
        options: [
          { value: "openai", label: "OpenAI-compatible", hint: "Ollama, vLLM, llama.cpp, LM Studio, OpenAI, …" },
          { value: "anthropic", label: "Anthropic Messages" },
          { value: "gemini", label: "Google Gemini" },
          { value: "responses", label: "OpenAI Responses API", hint: "OpenAI's /v1/responses: reasoning kept across tool calls" },
        ],
      }),
    );
    const d = defaultsFor(dialect, seed.intelligence);
    const intelligence = await ask(dialect === "openai" ? "Model endpoint URL" : "Model endpoint URL (empty: the provider's own)", {
      fallback: (seed.intelligence ?? d.intelligence) || undefined,
      check: (v) => checkUrl(v),
    });
    const modelDefault = seed.model ?? defaultsFor(dialect, intelligence || undefined).model;
    const model = await ask("Model name", {
      ...(modelDefault ? { fallback: modelDefault } : { placeholder: MODEL_EXAMPLES[dialect] }),
      check: (v) => (v ? undefined : "a model name is required"),
    });
    const keyDefault = seed.apiKeyEnv ?? defaultsFor(dialect, intelligence || undefined).apiKeyEnv;
    const apiKeyEnv = await ask("Environment variable holding the API key (empty: none)", {
      ...(keyDefault ? { fallback: keyDefault } : { placeholder: "e.g. OPENAI_API_KEY" }),
      check: checkKeyEnv,
    });
    const servers = [...seed.servers];
    // As many servers as the person wants: the first question, then "another?" after each.
    while (
      answered(
        await confirm({
          message: servers.length === 0 ? "Add an MCP server now?" : "Add another MCP server?",
          initialValue: servers.length === 0,
        }),
      )
    ) {
      const taken = new Set(servers.map((x) => x.name));
      const name = await ask("Server name", {
        ...(taken.has("fs") ? {} : { fallback: "fs" }),
        check: (v) => checkServerName(v) ?? (v && taken.has(v) ? `a server named '${v}' is already added` : undefined),
      });
      const target = await ask("Command line or URL", {
        placeholder: "npx -y @modelcontextprotocol/server-filesystem /data   or   https://tools.example/mcp",
        check: (v) => {
          try {
            serverEntry(v ?? "");
            return undefined;
          } catch (e) {
            return (e as Error).message;
          }
        },
      });
      servers.push({ name, target });
    }
    return {
      dialect,
      intelligence: intelligence || undefined,
      model: model || undefined,
      apiKeyEnv: apiKeyEnv || undefined,
      servers,
    };
  } catch (e) {
    if (!(e instanceof Cancelled)) throw e;
    cancel("Cancelled.");
    return undefined;
  }
}
