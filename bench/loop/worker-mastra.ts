/**
 * The loop run on Mastra: `@mastra/core`'s `Agent` with `@ai-sdk/openai-compatible` pointed at the fake
 * gateway's chat-completions API, and the timed tool server through `@mastra/mcp`'s `MCPClient` (tools
 * listed once, as its docs show).
 *
 *   bun bench/loop/worker-mastra.ts GATEWAY_URL WARMUPS RUNS   (BENCH_TOOL_TIMES, BENCH_BUN)
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";

// @ai-sdk/openai-compatible builds on @ai-sdk/provider 4.0.38, Mastra's types on its own copy (4.0.17): the
// same LanguageModelV4 at run time, two declarations to the compiler.
type MastraModel = ConstructorParameters<typeof Agent>[0]["model"];
import { FINAL_TEXT } from "./script.ts";
import { serveLoopWorker } from "./worker-protocol.ts";

const [url = "", warmups = "1", runs = "3"] = process.argv.slice(2);
const root = new URL("../..", import.meta.url).pathname;
const mcp = new MCPClient({
  id: "bench-loop",
  servers: {
    bench: {
      command: process.env.BENCH_BUN ?? "bun",
      args: [`${root}bench/loop/timed-mcp-server.ts`],
      env: { PATH: process.env.PATH ?? "", BENCH_TOOL_TIMES: process.env.BENCH_TOOL_TIMES ?? "" },
    },
  },
});
const provider = createOpenAICompatible({ name: "bench", baseURL: url, apiKey: "bench-no-key" });
const agent = new Agent({
  id: "echoer",
  name: "echoer",
  instructions: "Call the echo tool until the work is done.",
  model: provider.chatModel("bench-loop") as MastraModel,
  tools: await mcp.listTools(),
});
await serveLoopWorker(
  {
    async run() {
      const r = await agent.generate("Echo ten times.", { maxSteps: 20 });
      if (r.text !== FINAL_TEXT) throw new Error(`Mastra run ended with ${String(r.text).slice(0, 300)}`);
    },
    close: () => mcp.disconnect(),
  },
  Number(warmups),
  Number(runs),
);
