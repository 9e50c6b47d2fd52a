import { afterEach, expect, test } from "bun:test";
import { extractAction } from "@agentd/sdk/model";
import { type FakeGateway, startFakeGateway } from "@agentd/testkit";
import { runAdapterCases } from "../__fixtures__/adapter.case.ts";
import { createOpenAICompatible } from "./openai-compatible-language-model.ts";

runAdapterCases("openai", (settings) => createOpenAICompatible({ ...settings, model: "gpt-case" }));

const open: FakeGateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

test("supportsTools: false over the gateway: no tools offered, tool traffic sent as JSON actions and user turns", async () => {
  const gateway = await startFakeGateway({
    dialect: "openai",
    script: [{ text: 'Sure. {"action":"final","result":"21°C"}' }],
  });
  open.push(gateway);
  const model = createOpenAICompatible({ baseURL: gateway.url, model: "small-model", supportsTools: false });
  const r = await model.generate({
    messages: [
      { role: "user", content: "Weather?" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Oslo" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "get_weather", output: "21°C" }] },
    ],
    tools: [{ name: "get_weather", inputSchema: { type: "object" } }],
  });
  const text = r.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  expect(extractAction(text)).toEqual({ action: "final", result: "21°C" });
  const sent = gateway.requests[0];
  expect(sent?.rejected).toBeUndefined();
  expect(sent?.tools).toEqual([]);
  expect(sent?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  expect(extractAction(sent?.messages[1]?.text ?? "")).toEqual({ action: "tool", tool: "get_weather", arguments: { city: "Oslo" } });
  expect(sent?.messages[2]?.text).toContain("21°C");
});
