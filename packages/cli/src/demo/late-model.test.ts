import { expect, test } from "bun:test";
import { AgentdError, type LanguageModel } from "@agentd/sdk";
import type { ModelRequest, ModelStreamPart } from "@agentd/sdk/model";
import { lateModel } from "./late-model.ts";

const usage = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };

/** A model that answers with the text of the last message it was sent. */
function echoModel(provider: string): LanguageModel {
  const last = (r: ModelRequest) => String(r.messages.at(-1)?.content ?? "");
  return {
    provider,
    modelId: `${provider}-model`,
    supportsTools: false,
    generate: async (r) => ({ content: [{ type: "text", text: last(r) }], finishReason: "stop", usage }),
    async *stream(r): AsyncIterable<ModelStreamPart> {
      yield { type: "text-delta", id: "t", delta: last(r) };
      yield { type: "finish", finishReason: "stop", usage };
    },
  };
}

const ask = (text: string): ModelRequest => ({ messages: [{ role: "user", content: text }] });

test("used before bind, the late model says so (E_USAGE) instead of calling anything", async () => {
  const model = lateModel();
  const e = (() => {
    try {
      return model.provider;
    } catch (error) {
      return error;
    }
  })();
  expect(AgentdError.isInstance(e) && e.code).toBe("E_USAGE");
  expect(() => model.generate(ask("hi"))).toThrow("the model was used before it was bound");
});

test("once bound, every property and call goes to the bound model", async () => {
  const model = lateModel();
  model.bind(echoModel("first"));
  expect([model.provider, model.modelId, model.supportsTools]).toEqual(["first", "first-model", false]);
  expect((await model.generate(ask("hello"))).content).toEqual([{ type: "text", text: "hello" }]);
  const parts: ModelStreamPart[] = [];
  for await (const part of model.stream(ask("streamed"))) parts.push(part);
  expect(parts).toEqual([
    { type: "text-delta", id: "t", delta: "streamed" },
    { type: "finish", finishReason: "stop", usage },
  ]);
  model.bind(echoModel("second"));
  expect(model.provider).toBe("second");
});
