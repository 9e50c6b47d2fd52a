/**
 * The same agent from Bun, with events observed as they happen.
 *
 *   bun examples/sdk-usage/bun-agent.ts
 */
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { startFakeGateway } from "@agentd/testkit";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const gateway = await startFakeGateway({
  dialect: "anthropic",
  script: [
    (req) => ({
      toolCalls: [{ name: req.tools.find((t) => t.endsWith("convert_currency"))!, arguments: { amount: 10, from: "GBP", to: "EUR" } }],
    }),
    (req) => ({ text: `10 GBP is ${req.lastToolResult?.match(/"amount":([\d.]+)/)?.[1]} EUR` }),
  ],
});
// The CLI's own launcher (a dependency of this example): it serves the embedded demo's MCP server.
const cli = join(dirname(fileURLToPath(import.meta.resolve("@agentd/cli/package.json"))), "bin", "agentd.js");
const agent = createAgent({
  model: createModel({ dialect: "anthropic", baseURL: gateway.url, model: "claude-scripted", apiKey: "not-needed" }),
  mcpServers: { demo: { command: process.execPath, args: [cli, "__demo-server"] } },
  onEvent: (e) => e.type === "tool-result" && console.error(`tool ${e.qualifiedName} took ${e.durationMs}ms`),
});
try {
  const { text, usage } = await agent.run("Convert 10 GBP to EUR");
  console.log(text, usage);
} finally {
  await agent.close();
  await gateway.close();
}
