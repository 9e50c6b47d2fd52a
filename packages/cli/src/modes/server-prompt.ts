/**
 * `agentd run --prompt SERVER/NAME --arg k=v`: a server's prompt (MCP `prompts/get`) as the run's
 * instruction. The person chose the prompt, so its message texts are the instruction; what it embeds is
 * data — an embedded resource's text arrives fenced as untrusted (like a tool's output), images and audio
 * are summarised (the model interface is text), resource links are named. In a terminal, required arguments
 * left out are asked for with the server's completions (`ask-prompt-arguments.ts`); elsewhere they are one
 * usage line naming each `--arg`. `mcpServers.X.prompts: false` switches a server's prompts off.
 */
import { AgentdError, type AgentdConfig, type Logger } from "@agentd/sdk";
import { connectServer } from "@agentd/sdk/agent";
import type { McpClient } from "@agentd/sdk/mcp";
import { PromptList } from "@agentd/sdk/mcp";
import { capabilitiesFromConfig } from "@agentd/sdk/agent";
import { fenceResourceText } from "@agentd/sdk/loop";
import type { GetPromptResult } from "@agentd/sdk/wire";
import type { AskPromptArguments, CompleteArgument } from "./ask-prompt-arguments.ts";
import { promptsSwitchedOff } from "./prompts-switch.ts";

/** A `--prompt SERVER/NAME` reference with its arguments. */
export interface PromptRef {
  server: string;
  name: string;
  args: Record<string, string>;
}

/** Parse `SERVER/NAME`. */
export function parsePromptRef(text: string, args: Record<string, string>): PromptRef {
  const i = text.indexOf("/");
  if (i <= 0 || i === text.length - 1)
    throw new AgentdError("E_USAGE", `--prompt expects SERVER/NAME (a server from mcpServers and one of its prompts), got '${text}'`);
  return { server: text.slice(0, i), name: text.slice(i + 1), args };
}

type Block = GetPromptResult["messages"][number]["content"];

function blockText(block: Block): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case "resource": {
      const r = block.resource as { uri: string; text?: string; mimeType?: string };
      return r.text !== undefined ? fenceResourceText(r.uri, r.text) : `[resource ${r.uri} ${r.mimeType ?? "binary"}]`;
    }
    case "resource_link":
      return `[resource ${block.uri}]`;
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** The instruction a prompt's messages make. */
export function instructionOf(result: GetPromptResult): string {
  return result.messages.map((m) => (m.role === "assistant" ? `(assistant) ${blockText(m.content)}` : blockText(m.content))).join("\n\n");
}

/** Options of {@link fetchPromptInstruction}. */
export interface FetchPromptOptions {
  /** Ask for missing required arguments (in a terminal); without it they are one clear usage error. */
  ask?: AskPromptArguments;
}

/**
 * Connect to the prompt's server once, check (or ask for) the required arguments, and get the instruction.
 * The prompt is looked up again after asking: the list is re-read when the server said it changed meanwhile.
 */
export async function fetchPromptInstruction(
  config: AgentdConfig,
  ref: PromptRef,
  logger: Logger,
  options: FetchPromptOptions = {},
): Promise<string> {
  const entry = config.mcpServers?.[ref.server];
  if (!entry)
    throw new AgentdError(
      "E_USAGE",
      `--prompt: unknown MCP server '${ref.server}'; configured: ${Object.keys(config.mcpServers ?? {}).join(", ") || "none"}`,
    );
  const off = promptsSwitchedOff(ref.server, entry);
  if (off) throw off;
  const client = await connectServer(ref.server, entry, {
    logger,
    capabilities: { ...capabilitiesFromConfig(config), prompts: true, completion: options.ask !== undefined },
  });
  const list = new PromptList(client);
  try {
    const find = async () => {
      const prompt = await list.find(ref.name);
      if (!prompt)
        throw new AgentdError(
          "E_USAGE",
          `${ref.server} has no prompt '${ref.name}'; its prompts: ${(await list.prompts()).map((p) => p.name).join(", ") || "none"}`,
        );
      return { prompt, missing: (prompt.arguments ?? []).filter((a) => a.required && !(a.name in ref.args)) };
    };
    let { missing } = await find();
    const title = `${ref.server}/${ref.name}`;
    if (missing.length && options.ask) {
      const answers = await options.ask(title, missing, ref.args, completer(client, ref.name));
      if (!answers) throw new AgentdError("E_USAGE", `cancelled: prompt ${title} was not run`);
      Object.assign(ref.args, answers);
      ({ missing } = await find());
    }
    if (missing.length)
      throw new AgentdError(
        "E_USAGE",
        `prompt ${title} needs ${missing.map((m) => `--arg ${m.name}=…`).join(" ")}${options.ask ? "" : " (in a terminal, agentd asks for it with the server's completions)"}`,
      );
    return instructionOf(await client.getPrompt(ref.name, ref.args));
  } finally {
    list.close();
    await client.close();
  }
}

/** Completions from the server when it declares them; none otherwise (the question is then plain text). */
function completer(client: McpClient, prompt: string): CompleteArgument {
  return async (name, prefix, context) => {
    if (!client.serverCapabilities.completions) return [];
    const params = {
      ref: { type: "ref/prompt" as const, name: prompt },
      argument: { name, value: prefix },
      context: Object.keys(context).length ? { arguments: context } : undefined,
    };
    // Completion is a convenience: a server failing it still gets its question, as plain text.
    return client.complete(params).then(
      (r) => r.completion.values,
      () => [],
    );
  };
}
