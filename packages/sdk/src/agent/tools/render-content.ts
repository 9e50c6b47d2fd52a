/**
 * Render MCP tool-result content blocks as text for the model. Images and audio are summarised, not
 * inlined (the internal model interface is text); embedded resources contribute their text.
 */
import type { CallToolResult } from "../../wire/index.ts";

const MAX_INLINE_BLOB_NOTE = 64;

/** The text a model sees for one tool result. */
export function renderToolResult(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(`[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`);
        break;
      case "resource_link":
        parts.push(`[resource ${block.uri}${block.name ? ` "${block.name}"` : ""}]`);
        break;
      case "resource": {
        const r = block.resource as { uri: string; text?: string; blob?: string; mimeType?: string };
        parts.push(
          r.text !== undefined
            ? r.text
            : `[resource ${r.uri} ${r.mimeType ?? "binary"}, ${r.blob?.length ?? 0} base64 chars]`.slice(0, 200 + MAX_INLINE_BLOB_NOTE),
        );
        break;
      }
      default:
        parts.push(`[${(block as { type: string }).type} content]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  return parts.join("\n");
}
