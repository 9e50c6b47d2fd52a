import { describe, expect, test } from "bun:test";
import { extractAction, type ModelMessage } from "@agentd/sdk/model";
import { convertToOpenAICompatibleMessages } from "./convert-to-openai-compatible-messages.ts";

const conversation: ModelMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather and time in Paris?" },
  {
    role: "assistant",
    content: [
      { type: "text", text: "Checking." },
      { type: "tool-call", toolCallId: "call_1", toolName: "get_weather", input: { city: "Paris" } },
      { type: "tool-call", toolCallId: "call_2", toolName: "get_time", input: {} },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "call_1", toolName: "get_weather", output: "21°C" },
      { type: "tool-result", toolCallId: "call_2", toolName: "get_time", output: "clock broken", isError: true },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "21°C; time unknown." }] },
];

describe("convertToOpenAICompatibleMessages", () => {
  test("native tools: tool_calls on the assistant message, one tool message per result", () => {
    expect(convertToOpenAICompatibleMessages(conversation, true)).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather and time in Paris?" },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "21°C" },
      { role: "tool", tool_call_id: "call_2", content: "Error: clock broken" },
      { role: "assistant", content: "21°C; time unknown." },
    ]);
  });

  test("an assistant turn of only tool calls has null content", () => {
    const [m] = convertToOpenAICompatibleMessages(
      [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "t", input: { a: 1 } }] }],
      true,
    );
    expect(m).toMatchObject({ role: "assistant", content: null });
  });

  test("without native tools: calls become JSON actions the extractor reads back, results user turns", () => {
    const out = convertToOpenAICompatibleMessages(conversation, false);
    expect(out.some((m) => m.role === "tool" || "tool_calls" in m)).toBe(false);
    const assistant = out[2];
    expect(assistant?.role).toBe("assistant");
    const text = assistant?.content as string;
    expect(text.startsWith("Checking.\n")).toBe(true);
    expect(extractAction(text)).toEqual({ action: "tool", tool: "get_weather", arguments: { city: "Paris" } });
    expect(out[3]).toEqual({
      role: "user",
      content: 'Result of tool "get_weather":\n21°C\n\nResult of tool "get_time" (error):\nclock broken',
    });
  });
});
