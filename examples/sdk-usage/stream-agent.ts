/**
 * Watching a run from code: `agent.stream()` yields typed events as the run happens — the answer as it is
 * written, each tool call with its arguments and a summary of its result — and ends with `finish`.
 *
 *   bun examples/sdk-usage/stream-agent.ts
 */
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { startFakeGateway } from "@agentd/testkit";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const gateway = await startFakeGateway({
  dialect: "openai",
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
  model: createModel({ dialect: "openai", baseURL: gateway.url, model: "scripted", apiKey: "not-needed" }),
  mcpServers: { demo: { command: process.execPath, args: [cli, "__demo-server"] } },
});
try {
  for await (const e of agent.stream("Convert 10 GBP to EUR")) {
    if (e.type === "text-delta") process.stdout.write(e.delta);
    else if (e.type === "tool-call-start") console.error(`→ ${e.qualifiedName} ${JSON.stringify(e.arguments)}`);
    else if (e.type === "tool-call-end")
      console.error(`← ${e.qualifiedName} ${e.isError ? "failed" : "ok"} in ${e.durationMs}ms: ${e.summary}`);
    else if (e.type === "finish") {
      process.stdout.write("\n");
      if ("error" in e) {
        console.error(`${e.status}: ${e.error.code} ${e.error.message}`);
        process.exitCode = 1;
      } else console.error(`${e.status} · ${e.turns} turns · ${e.usage.totalTokens} tokens`);
    }
  }
} finally {
  await agent.close();
  await gateway.close();
}
