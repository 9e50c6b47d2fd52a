import { describe, expect, test } from "bun:test";
import { convertToGeminiMessages, SYNTHETIC_ID_PREFIX } from "./convert-to-gemini-messages.ts";

describe("convertToGeminiMessages", () => {
  test("systemInstruction, model role, function calls with signatures, one turn of wrapped responses", () => {
    const made = `${SYNTHETIC_ID_PREFIX}abc`;
    const out = convertToGeminiMessages([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather and time?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "fc-1", toolName: "get_weather", input: { city: "Paris" }, signature: "SIG1" },
          { type: "tool-call", toolCallId: made, toolName: "get_time", input: {} },
        ],
      },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "fc-1", toolName: "get_weather", output: "21°C" }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: made, toolName: "get_time", output: "broken", isError: true }] },
      { role: "assistant", content: [{ type: "text", text: "21°C." }] },
      { role: "user", content: "" },
    ]);
    expect(out.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(out.contents).toEqual([
      { role: "user", parts: [{ text: "Weather and time?" }] },
      {
        role: "model",
        parts: [
          { text: "Checking." },
          { functionCall: { name: "get_weather", args: { city: "Paris" }, id: "fc-1" }, thoughtSignature: "SIG1" },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "get_weather", response: { result: "21°C" }, id: "fc-1" } },
          { functionResponse: { name: "get_time", response: { error: "broken" } } },
        ],
      },
      { role: "model", parts: [{ text: "21°C." }] },
    ]);
  });

  test("an empty assistant turn does not swallow the next one into a user turn", () => {
    const out = convertToGeminiMessages([
      { role: "user", content: "a" },
      { role: "assistant", content: [{ type: "text", text: "" }] },
      { role: "assistant", content: [{ type: "text", text: "b" }] },
    ]);
    expect(out.contents).toEqual([
      { role: "user", parts: [{ text: "a" }] },
      { role: "model", parts: [{ text: "b" }] },
    ]);
    expect(out.systemInstruction).toBeUndefined();
  });
});
