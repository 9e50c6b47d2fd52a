// A one-shot agent from the installed packages (Node or Bun): the model is the testkit's fake gateway, the
// MCP server the testkit's fake server as a real stdio child. Prints one JSON line with what happened.
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { fakeServerCommand, startFakeGateway } from "@agentd/testkit";

const orders = fakeServerCommand({
  name: "orders",
  tools: [{ name: "status", inputSchema: { type: "object", properties: { id: { type: "string" } } }, text: "order {{id}} is shipped" }],
});
const gateway = await startFakeGateway({
  dialect: "openai",
  script: [
    { toolCalls: [{ name: "orders__status", arguments: { id: "A-7" } }] },
    (req) => ({ text: `The tool said: ${req.lastToolResult}` }),
  ],
});
const agent = createAgent({
  model: createModel({ dialect: "openai", baseURL: gateway.url, apiKey: "sk-test", model: "scripted" }),
  mcpServers: { orders: orders.config },
  limits: { maxTurns: 4 },
});
try {
  const result = await agent.run("Where is order A-7?");
  const calls = orders.recordedRequests().filter((r) => r.method === "tools/call").length;
  console.log(JSON.stringify({ text: result.text, turns: result.turns, calls, runtime: process.versions.bun ? "bun" : "node" }));
} finally {
  await agent.close();
  await gateway.close();
  orders.dispose();
}
