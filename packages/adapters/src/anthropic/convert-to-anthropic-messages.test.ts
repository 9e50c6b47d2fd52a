import { describe, expect, test } from "bun:test";
import { convertToAnthropicMessages } from "./convert-to-anthropic-messages.ts";

describe("convertToAnthropicMessages", () => {
  test("system apart, tool_use and merged tool_result turns, empty text dropped", () => {
    const out = convertToAnthropicMessages([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather?" },
      { role: "system", content: "Use metric." },
      {
        role: "assistant",
        content: [
          { type: "text", text: "" },
          { type: "tool-call", toolCallId: "toolu_1", toolName: "get_weather", input: { city: "Paris" } },
          { type: "tool-call", toolCallId: "toolu_2", toolName: "get_time", input: {} },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_1", toolName: "get_weather", output: "21°C" }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_2", toolName: "get_time", output: "no clock", isError: true }] },
      { role: "user", content: "And tomorrow?" },
    ]);
    expect(out.system).toBe("Be brief.\n\nUse metric.");
    expect(out.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "21°C" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "no clock", is_error: true },
          { type: "text", text: "And tomorrow?" },
        ],
      },
    ]);
  });

  test("consecutive user messages merge; tool results come first in a merged turn", () => {
    const out = convertToAnthropicMessages([
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "t", toolName: "x", input: {} }] },
      { role: "user", content: "note" },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "t", toolName: "x", output: "done" }] },
    ]);
    expect(out.system).toBeUndefined();
    expect(out.messages[1]?.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
  });
});
