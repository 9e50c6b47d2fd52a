import { describe, expect, test } from "bun:test";
import type { ModelStreamPart } from "@agentd/sdk/model";
import { jsonResponse, scriptedFetch, sseResponse } from "../__fixtures__/fixture-replay.ts";
import type { ThinkingSettings } from "../_internal/thinking.ts";
import { createGemini } from "./gemini-language-model.ts";

const user = { role: "user" as const, content: "Weather?" };
const done = () => jsonResponse({ candidates: [{ content: { parts: [{ text: "ok" }] }, finishReason: "STOP" }] });

async function configFor(thinking: ThinkingSettings | undefined) {
  const { fetch, sent } = scriptedFetch([done]);
  await createGemini({ model: "g", fetch, thinking }).generate({ messages: [user] });
  return (sent[0]?.body.generationConfig as Record<string, unknown> | undefined)?.thinkingConfig;
}

describe("gemini thinking", () => {
  test("thinkingConfig: a budget, dynamic when adaptive, 0 when off, a level for effort, nothing when unset", async () => {
    expect(await configFor({ budgetTokens: 512 })).toEqual({ includeThoughts: true, thinkingBudget: 512 });
    expect(await configFor({ adaptive: true })).toEqual({ includeThoughts: true, thinkingBudget: -1 });
    expect(await configFor({ enabled: false, budgetTokens: 512 })).toEqual({ thinkingBudget: 0 });
    expect(await configFor({ effort: "low" })).toEqual({ includeThoughts: true, thinkingLevel: "low" });
    expect(await configFor(undefined)).toBeUndefined();
  });

  test("generate: thoughts are reasoning, signatures stay on their part and go back there; cache and thought counts", async () => {
    const reply = {
      candidates: [
        {
          content: {
            role: "model",
            parts: [
              { text: "Let me think.", thought: true, thoughtSignature: "T-SIG" },
              { text: "It is sunny.", thoughtSignature: "X-SIG" },
            ],
          },
          finishReason: "STOP",
        },
      ],
      usageMetadata: {
        promptTokenCount: 100,
        cachedContentTokenCount: 60,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 7,
        totalTokenCount: 112,
      },
    };
    const { fetch, sent } = scriptedFetch([() => jsonResponse(reply), done]);
    const model = createGemini({ model: "g", fetch });
    const r = await model.generate({ messages: [user] });
    expect(r.content).toEqual([
      { type: "reasoning", provider: "gemini", text: "Let me think.", signature: "T-SIG" },
      { type: "text", text: "It is sunny.", signature: "X-SIG" },
    ]);
    expect(r.usage).toEqual({ inputTokens: 100, outputTokens: 12, totalTokens: 112, cacheReadTokens: 60, reasoningTokens: 7 });
    await model.generate({ messages: [user, { role: "assistant", content: r.content }, { role: "user", content: "And tomorrow?" }] });
    const contents = sent[1]?.body.contents as Array<{ role: string; parts: unknown[] }>;
    expect(contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "Let me think.", thought: true, thoughtSignature: "T-SIG" },
        { text: "It is sunny.", thoughtSignature: "X-SIG" },
      ],
    });
  });

  test("stream: a signature on an empty closing text part is kept on a text-end of its own", async () => {
    const chunks = [
      { candidates: [{ content: { role: "model", parts: [{ text: "Sunny" }] } }] },
      { candidates: [{ content: { role: "model", parts: [{ text: "", thoughtSignature: "END-SIG" }] }, finishReason: "STOP" }] },
    ].map((c) => JSON.stringify(c));
    const { fetch } = scriptedFetch([() => sseResponse(chunks, { lineEnd: "\r\n" })]);
    const parts: ModelStreamPart[] = [];
    for await (const p of createGemini({ model: "g", fetch }).stream({ messages: [user] })) parts.push(p);
    expect(parts.slice(0, 3)).toEqual([
      { type: "text-start", id: "text-0" },
      { type: "text-delta", id: "text-0", delta: "Sunny" },
      { type: "text-end", id: "text-0", signature: "END-SIG" },
    ]);
  });
});
