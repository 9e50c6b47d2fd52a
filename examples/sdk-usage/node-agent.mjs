// A complete agent run from plain Node.js (ESM): createAgent + an adapter + an MCP server over stdio.
// The model is the testkit's fake gateway so this runs offline; point baseURL at a real endpoint instead.
//
//   node examples/sdk-usage/node-agent.mjs <command> [args…]   (the MCP server to use, e.g. bun server.ts)
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { startFakeGateway } from "@agentd/testkit";

const [command, ...args] = process.argv.slice(2);
const gateway = await startFakeGateway({
  dialect: "openai",
  script: [
    (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.endsWith("lookup_order")), arguments: { orderId: "A-1042" } }] }),
    (req) => ({ text: `Node saw: ${req.lastToolResult?.match(/"status":"(\w+)"/)?.[1]}` }),
  ],
});
const agent = createAgent({
  model: createModel({ dialect: "openai", baseURL: gateway.url, model: "scripted" }),
  mcpServers: { demo: { command, args } },
  limits: { maxTurns: 5 },
});
try {
  const result = await agent.run("What is the status of order A-1042?");
  console.log(JSON.stringify({ text: result.text, turns: result.turns, node: process.versions.node }));
} finally {
  await agent.close();
  await gateway.close();
}
