/**
 * Thought parts, thought signatures and implicit caching on the fake gemini gateway, the official
 * `@google/genai` SDK as oracle: a signed function call parses (whole and streamed), comes back unchanged
 * or the request fails like the real API, and usage reports thoughts and cached prompt tokens.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { ApiError, type Content, type FunctionDeclaration } from "@google/genai";
import { closeGateways, geminiPair, rejection } from "./__fixtures__/oracle-client.ts";

afterEach(closeGateways);

const weather: FunctionDeclaration = {
  name: "get_weather",
  parametersJsonSchema: { type: "object", properties: { city: { type: "string" } } },
};
const config = { tools: [{ functionDeclarations: [weather] }], thinkingConfig: { thinkingBudget: 512, includeThoughts: true } };
const turn = { reasoning: "Paris: call the tool.", toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] };
const question: Content = { role: "user", parts: [{ text: "Weather in Paris?" }] };
const followUp = (model: Content): Content[] => [
  question,
  model,
  { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { result: "21°C" } } }] },
];

describe("gemini gateway: thinking", () => {
  test("a thought part and a signed call parse whole and streamed; sent back unchanged the turn goes on", async () => {
    const { client } = await geminiPair({ script: [turn, turn, { text: "21°C." }] });
    const whole = await client.models.generateContent({ model: "gemini-test", contents: [question], config });
    const parts = whole.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]).toEqual({ text: "Paris: call the tool.", thought: true });
    expect(typeof parts[1]?.thoughtSignature).toBe("string");
    expect(whole.functionCalls?.[0]).toMatchObject({ name: "get_weather", args: { city: "Paris" } });
    expect(whole.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
    const chunks = [];
    for await (const chunk of await client.models.generateContentStream({ model: "gemini-test", contents: [question], config }))
      chunks.push(chunk);
    const streamedCall = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []).find((p) => p.functionCall);
    expect(streamedCall?.thoughtSignature).toBe(parts[1]?.thoughtSignature);
    const answer = await client.models.generateContent({ model: "gemini-test", contents: followUp({ role: "model", parts }), config });
    expect(answer.text).toBe("21°C.");
  });

  test("a dropped or changed signature fails with the real API's 400 while thinking is on", async () => {
    const { client } = await geminiPair({ script: [turn], onExhausted: "repeat-last" });
    const parts =
      (await client.models.generateContent({ model: "gemini-test", contents: [question], config })).candidates?.[0]?.content?.parts ?? [];
    const call = parts[1] as NonNullable<(typeof parts)[1]>;
    const cases: Array<[Content, string]> = [
      [
        { role: "model", parts: [{ functionCall: call.functionCall }] },
        "Function call is missing a thought_signature in functionCall parts",
      ],
      [{ role: "model", parts: [{ ...call, thoughtSignature: "bm90IGl0" }] }, "Thought signature is not valid."],
    ];
    for (const [model, message] of cases) {
      const error = await rejection(client.models.generateContent({ model: "gemini-test", contents: followUp(model), config }));
      expect(error instanceof ApiError && error.status === 400).toBe(true);
      expect((error as ApiError).message).toContain(message);
      expect((error as ApiError).message).toContain("INVALID_ARGUMENT");
    }
  });
});

describe("gemini gateway: implicit caching", () => {
  test("a repeated prefix is reported as cachedContentTokenCount", async () => {
    const { client } = await geminiPair({ script: [{ text: "one" }, { text: "two" }] });
    const systemInstruction = "You are terse. ".repeat(40);
    const first = await client.models.generateContent({ model: "gemini-test", contents: [question], config: { systemInstruction } });
    expect(first.usageMetadata?.cachedContentTokenCount).toBeUndefined();
    const second = await client.models.generateContent({
      model: "gemini-test",
      contents: [question, { role: "model", parts: [{ text: "one" }] }, { role: "user", parts: [{ text: "And Oslo?" }] }],
      config: { systemInstruction },
    });
    expect(second.usageMetadata?.cachedContentTokenCount).toBeGreaterThan(0);
    expect(second.usageMetadata?.cachedContentTokenCount).toBeLessThan(second.usageMetadata?.promptTokenCount ?? 0);
  });
});
