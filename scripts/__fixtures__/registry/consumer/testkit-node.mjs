// @agentd/testkit from Node's test runner (`node --test`) in a fresh project: an in-memory fake MCP server
// answers the SDK's client, and a fake gateway answers a chat completion.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createFakeMcpServer, startFakeGateway } from "@agentd/testkit";

const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test("the fake gateway answers a chat completion from its script", async () => {
  const gateway = await startFakeGateway({ dialect: "openai", script: [{ text: "hello from node --test" }] });
  cleanups.push(() => gateway.close());
  const res = await fetch(`${gateway.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).choices[0].message.content, "hello from node --test");
});

test("a fake MCP server answers the SDK client", async () => {
  const fake = createFakeMcpServer({ tools: [{ name: "echo", text: "echo {{msg}}" }] });
  const client = await fake.connectInMemory();
  cleanups.push(() => client.close());
  const result = await client.callTool("echo", { msg: "hi" });
  assert.deepEqual(result.content, [{ type: "text", text: "echo hi" }]);
});
