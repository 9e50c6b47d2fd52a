// @agentd/testkit from `bun test` in a fresh project: a fake gateway answers the official-shaped request.
import { afterEach, expect, test } from "bun:test";
import { startFakeGateway } from "@agentd/testkit";

let gateway;
afterEach(() => gateway?.close());

test("the fake gateway answers a chat completion from its script and records it", async () => {
  gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "hello from bun test" }] });
  const res = await fetch(`${gateway.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(res.status).toBe(200);
  expect((await res.json()).choices[0].message.content).toBe("hello from bun test");
  expect(gateway.requests.length).toBe(1);
});
