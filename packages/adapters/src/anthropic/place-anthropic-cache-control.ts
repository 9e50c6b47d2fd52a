/**
 * Prompt caching for the Anthropic Messages API: `cache_control` breakpoints on the stable prefix. The
 * cached prefix runs tools → system → messages, and the API allows at most 4 breakpoints, so we place:
 * the last tool definition, the system prompt, the last message (what this request adds, read by the next
 * one), and the user turn before it (what the previous request wrote, so this one reads it even when the
 * API's look-back from the last breakpoint would not reach it). Thinking blocks cannot carry a breakpoint.
 */
import type { AnthropicCacheControl, AnthropicContentBlock, AnthropicMessagesRequest } from "./anthropic-api.ts";

/** The API's limit on `cache_control` blocks per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const cacheable = (b: AnthropicContentBlock) => b.type !== "thinking" && b.type !== "redacted_thinking";

/** Mark the last cacheable block of a message; false when it has none. */
function markMessage(blocks: AnthropicContentBlock[], control: AnthropicCacheControl): boolean {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i] as AnthropicContentBlock;
    if (!cacheable(b)) continue;
    blocks[i] = { ...b, cache_control: control } as AnthropicContentBlock;
    return true;
  }
  return false;
}

/** Place the breakpoints on `body` (in place). The message blocks are copies, never the caller's objects. */
export function placeAnthropicCacheControl(body: AnthropicMessagesRequest, ttl?: "5m" | "1h"): void {
  const control: AnthropicCacheControl = ttl === undefined ? { type: "ephemeral" } : { type: "ephemeral", ttl };
  let left = MAX_CACHE_BREAKPOINTS;
  const lastTool = body.tools?.at(-1);
  if (body.tools && lastTool) {
    body.tools[body.tools.length - 1] = { ...lastTool, cache_control: control };
    left--;
  }
  if (typeof body.system === "string" && body.system !== "") {
    body.system = [{ type: "text", text: body.system, cache_control: control }];
    left--;
  }
  // The last message, then the user turns before it, newest first, while breakpoints remain (two at most).
  const marks = Math.min(left, 2);
  let placed = 0;
  for (let i = body.messages.length - 1; i >= 0 && placed < marks; i--) {
    const m = body.messages[i];
    if (!m || (placed > 0 && m.role !== "user")) continue;
    if (markMessage(m.content, control)) placed++;
  }
}
