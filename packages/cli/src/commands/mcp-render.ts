/**
 * How `agentd mcp` shows what a server offers and answers, for a person: aligned tables for the lists,
 * content blocks as text with binary parts summarised (`[image image/png, 12.3 KB]`). Everything a server
 * sent is shown with its control characters escaped (terminal-text.ts): a tool's description or result must
 * not command the terminal it is read on.
 */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "@agentd/sdk/wire";
import type { McpServerConfig } from "@agentd/sdk";
import { forTerminal } from "../terminal-text.ts";

/** Rows under a header, columns aligned; the last column is cut to `width` characters a line. */
export function table(header: string[], rows: string[][], width = Number.POSITIVE_INFINITY): string {
  const all = [header, ...rows].map((r) => r.map((cell) => forTerminal(String(cell))));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map((r) => {
      const line = r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd();
      return line.length > width ? `${line.slice(0, Math.max(width - 1, 0))}…` : line;
    })
    .join("\n")
    .concat("\n");
}

const firstLine = (s: string | undefined) => (s ?? "").trim().split("\n")[0] ?? "";

/** Byte size of base64 data, for humans. */
export function size(base64Length: number): string {
  const bytes = Math.floor((base64Length * 3) / 4);
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `path, encoding?` — required arguments first, optional ones marked with `?`. */
export function toolArgs(tool: Tool): string {
  const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
  const required = schema.required ?? [];
  const optional = Object.keys(schema.properties ?? {}).filter((k) => !required.includes(k));
  return [...required, ...optional.map((k) => `${k}?`)].join(", ");
}

/** The tools table: name, arguments, description. */
export function renderTools(tools: Tool[], width?: number): string {
  const rows = tools.map((t) => [t.name, toolArgs(t) || "-", firstLine(t.title ?? t.description)]);
  return table(["TOOL", "ARGS (? = optional)", "DESCRIPTION"], rows, width);
}

/** The prompts table: name, arguments, description. */
export function renderPrompts(prompts: Prompt[], width?: number): string {
  const args = (p: Prompt) => (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(", ");
  return table(
    ["PROMPT", "ARGS (? = optional)", "DESCRIPTION"],
    prompts.map((p) => [p.name, args(p) || "-", firstLine(p.title ?? p.description)]),
    width,
  );
}

/** Resources, then resource templates. */
export function renderResources(resources: Resource[], templates: ResourceTemplate[], width?: number): string {
  const rows = [
    ...resources.map((r) => [r.uri, r.mimeType ?? "-", firstLine(r.title ?? r.name ?? r.description)]),
    ...templates.map((t) => [t.uriTemplate, t.mimeType ?? "-", `${firstLine(t.title ?? t.name ?? t.description)} (template)`.trim()]),
  ];
  return table(["URI", "MIME", "NAME"], rows, width);
}

/** The configured servers: name, transport, command or URL. */
export function renderServers(servers: Record<string, McpServerConfig>, width?: number): string {
  const rows = Object.entries(servers).map(([name, s]) => {
    const label = s.disabled === true ? `${name} (disabled)` : name;
    return "command" in s ? [label, "stdio", [s.command, ...(s.args ?? [])].join(" ")] : [label, "http", s.url];
  });
  return table(["SERVER", "TRANSPORT", "COMMAND / URL"], rows, width);
}

/** One content block as text: text itself, binary parts summarised. */
export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${size(block.data.length)}]`;
    case "resource_link":
      return `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.mimeType ? ` ${block.mimeType}` : ""}]`;
    case "resource": {
      const r = block.resource as { uri: string; text?: string; blob?: string; mimeType?: string };
      return r.text !== undefined ? r.text : `[resource ${r.uri} ${r.mimeType ?? "binary"}, ${size(r.blob?.length ?? 0)}]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

/** A tool result: its content blocks, else its structured content as indented JSON. */
export function renderCallResult(result: CallToolResult): string {
  const parts = (result.content ?? []).map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  const text = forTerminal(parts.join("\n"), { lines: true });
  return text.endsWith("\n") || text === "" ? text : `${text}\n`;
}

/** A resource's contents: text as it is, blobs summarised; several contents each under their URI. */
export function renderContents(result: ReadResourceResult): string {
  const contents = result.contents as Array<{ uri: string; mimeType?: string; text?: string; blob?: string }>;
  const body = (c: (typeof contents)[number]) =>
    c.text !== undefined ? c.text : `[blob ${c.mimeType ?? "binary"}, ${size(c.blob?.length ?? 0)}]`;
  const all = contents.length === 1 ? body(contents[0]!) : contents.map((c) => `--- ${c.uri}\n${body(c)}`).join("\n");
  const text = forTerminal(all, { lines: true });
  return text.endsWith("\n") || text === "" ? text : `${text}\n`;
}

/** A prompt's messages, each as `role: content`. */
export function renderPrompt(result: GetPromptResult): string {
  const lines = result.messages.map((m) => `${m.role}: ${describeBlock(m.content as ContentBlock)}`);
  return `${forTerminal([...(result.description ? [`# ${result.description}`] : []), ...lines].join("\n\n"), { lines: true })}\n`;
}
