/**
 * The loop run on agentd: `createAgent` with the OpenAI-compatible model from `@agentd/adapters` pointed at
 * the fake gateway, and the timed tool server as a stdio MCP server.
 *
 *   bun bench/loop/worker-agentd.ts GATEWAY_URL WARMUPS RUNS   (BENCH_TOOL_TIMES names the tool-time file)
 */
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { FINAL_TEXT } from "./script.ts";
import { serveLoopWorker } from "./worker-protocol.ts";

const [url = "", warmups = "1", runs = "3"] = process.argv.slice(2);
const server = new URL("./timed-mcp-server.ts", import.meta.url).pathname;
const agent = createAgent({
  model: createModel({ dialect: "openai", baseURL: url, model: "bench-loop", apiKey: "bench-no-key", maxRetries: 0 }),
  mcpServers: { bench: { command: process.execPath, args: [server], env: { BENCH_TOOL_TIMES: process.env.BENCH_TOOL_TIMES ?? "" } } },
  instructions: "Call the echo tool until the work is done.",
  limits: { maxTurns: 20 },
});
await agent.connect();
await serveLoopWorker(
  {
    async run() {
      const r = await agent.run("Echo ten times.");
      if (r.text !== FINAL_TEXT || r.toolCalls !== 10) throw new Error(`agentd run ended with ${JSON.stringify(r).slice(0, 300)}`);
    },
    close: () => agent.close(),
  },
  Number(warmups),
  Number(runs),
);
