/**
 * `agentd run --prompt SERVER/NAME --arg k=v`: a server's prompt (MCP `prompts/get`) as the run's
 * instruction. The person chose the prompt, so its message texts are the instruction; what it embeds is
 * data — an embedded resource's text arrives fenced as untrusted (like a tool's output), images and audio
 * are summarised (the model interface is text), resource links are named.
 */
import { AgentdError, connectServer, type AgentdConfig, type Logger } from "@agentd/sdk";
import { capabilityConfigFrom } from "@agentd/sdk";
import { fenceResourceText } from "@agentd/sdk/loop";
import type { GetPromptResult } from "@agentd/sdk/wire";

/** A `--prompt SERVER/NAME` reference with its arguments. */
export interface PromptRef {
  server: string;
  name: string;
  args: Record<string, string>;
}

/** Parse `SERVER/NAME`. */
export function parsePromptRef(text: string, args: Record<string, string>): PromptRef {
  const i = text.indexOf("/");
  if (i <= 0 || i === text.length - 1) throw new AgentdError("E_USAGE", `--prompt expects SERVER/NAME (a server from mcpServers and one of its prompts), got '${text}'`);
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

/** Connect to the prompt's server once, check the required arguments, and get the instruction. */
export async function fetchPromptInstruction(config: AgentdConfig, ref: PromptRef, logger: Logger): Promise<string> {
  const entry = config.mcpServers?.[ref.server];
  if (!entry) throw new AgentdError("E_USAGE", `--prompt: unknown MCP server '${ref.server}'; configured: ${Object.keys(config.mcpServers ?? {}).join(", ") || "none"}`);
  const client = await connectServer(ref.server, entry, { logger, capabilities: { ...capabilityConfigFrom(config), prompts: true } });
  try {
    const prompts = await client.listPrompts();
    const prompt = prompts.find((p) => p.name === ref.name);
    if (!prompt) throw new AgentdError("E_USAGE", `${ref.server} has no prompt '${ref.name}'; its prompts: ${prompts.map((p) => p.name).join(", ") || "none"}`);
    const missing = (prompt.arguments ?? []).filter((a) => a.required && !(a.name in ref.args)).map((a) => a.name);
    if (missing.length) throw new AgentdError("E_USAGE", `prompt ${ref.server}/${ref.name} needs ${missing.map((m) => `--arg ${m}=…`).join(" ")}`);
    return instructionOf(await client.getPrompt(ref.name, ref.args));
  } finally {
    await client.close();
  }
}
