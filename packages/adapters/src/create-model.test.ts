import { describe, expect, test } from "bun:test";
import { AgentdError } from "@agentd/sdk/model";
import { jsonResponse, scriptedFetch } from "./__fixtures__/fixture-replay.ts";
import { createModel, MODEL_DIALECTS } from "./index.ts";

const reply = {
  openai: () => jsonResponse({ choices: [{ message: { content: "ok" }, finish_reason: "stop" }] }),
  responses: () =>
    jsonResponse({
      id: "resp_1",
      status: "completed",
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] }],
    }),
  anthropic: () => jsonResponse({ content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" }),
  gemini: () => jsonResponse({ candidates: [{ content: { parts: [{ text: "ok" }] }, finishReason: "STOP" }] }),
};
const expected = {
  openai: ["openai-compatible", "http://gw.test/v1/chat/completions", "authorization", "Bearer k-1"],
  responses: ["openai-responses", "http://gw.test/v1/responses", "authorization", "Bearer k-1"],
  anthropic: ["anthropic", "http://gw.test/v1/messages", "x-api-key", "k-1"],
  gemini: ["gemini", "http://gw.test/v1beta/models/m-1:generateContent", "x-goog-api-key", "k-1"],
} as const;

describe("createModel", () => {
  for (const dialect of MODEL_DIALECTS)
    test(`${dialect}: the right adapter, endpoint and auth header`, async () => {
      const { fetch, sent } = scriptedFetch([reply[dialect]]);
      const base = dialect === "openai" || dialect === "responses" ? "http://gw.test/v1" : "http://gw.test";
      const m = createModel({ dialect, baseURL: base, apiKey: "k-1", model: "m-1", fetch });
      const [provider, url, header, value] = expected[dialect];
      expect([m.provider, m.modelId, m.supportsTools]).toEqual([provider, "m-1", true]);
      const r = await m.generate({ messages: [{ role: "user", content: "hi" }] });
      expect(r.content).toEqual([{ type: "text", text: "ok" }]);
      expect(sent[0]?.url).toBe(url);
      expect(sent[0]?.headers[header]).toBe(value);
    });

  test("openai options pass through", () => {
    expect(createModel({ dialect: "openai", baseURL: "http://x/v1", model: "m", supportsTools: false }).supportsTools).toBe(false);
  });

  test("configuration mistakes are one clear E_CONFIG_INVALID line", () => {
    const noUrl = (() => {
      try {
        createModel({ dialect: "openai", model: "m", apiKey: "secret-key" });
      } catch (e) {
        return e;
      }
    })();
    expect(AgentdError.isInstance(noUrl) && noUrl.code === "E_CONFIG_INVALID").toBe(true);
    expect((noUrl as Error).message).not.toContain("secret-key");
    expect(() => createModel({ dialect: "cohere" as never, model: "m" })).toThrow(
      'unknown model dialect "cohere": expected one of openai, responses, anthropic, gemini',
    );
  });
});
