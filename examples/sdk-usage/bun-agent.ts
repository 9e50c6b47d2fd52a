/**
 * The same agent from Bun, with events observed as they happen.
 *
 *   bun examples/sdk-usage/bun-agent.ts
 */
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { selfCommand } from "@agentd/sdk/transport";
import { startFakeGateway } from "@agentd/testkit";
import { resolve } from "node:path";

const gateway = await startFakeGateway({
  dialect: "anthropic",
  script: [
    (req) => ({
      toolCalls: [{ name: req.tools.find((t) => t.endsWith("convert_currency"))!, arguments: { amount: 10, from: "GBP", to: "EUR" } }],
    }),
    (req) => ({ text: `10 GBP is ${req.lastToolResult?.match(/"amount":([\d.]+)/)?.[1]} EUR` }),
  ],
});
const cli = resolve(import.meta.dir, "../../packages/cli/src/main.ts");
const agent = createAgent({
  model: createModel({ dialect: "anthropic", baseURL: gateway.url, model: "claude-scripted", apiKey: "not-needed" }),
  mcpServers: { demo: { command: selfCommand(cli).command, args: [cli, "__demo-server"] } },
  onEvent: (e) => e.type === "tool-call-end" && console.error(`tool ${e.qualifiedName} took ${e.durationMs}ms`),
});
try {
  const { text, usage } = await agent.run("Convert 10 GBP to EUR");
  console.log(text, usage);
} finally {
  await agent.close();
  await gateway.close();
}
