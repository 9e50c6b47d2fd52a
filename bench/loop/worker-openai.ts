/**
 * The loop run on `@openai/agents`: `Agent` + `run` with `OpenAIChatCompletionsModel` on the fake gateway's
 * chat-completions API, and the timed tool server through `MCPServerStdio` (tools list cached, as its docs
 * advise for speed). Runs under Bun as is, and under Node when built by the benchmark.
 *
 *   bun bench/loop/worker-openai.ts GATEWAY_URL WARMUPS RUNS   (BENCH_TOOL_TIMES, BENCH_BUN)
 */
import {
  Agent,
  MCPServerStdio,
  OpenAIChatCompletionsModel,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from "@openai/agents";
import OpenAI from "openai";
import { FINAL_TEXT } from "./script.ts";
import { serveLoopWorker } from "./worker-protocol.ts";

const [url = "", warmups = "1", runs = "3"] = process.argv.slice(2);
const root = new URL("../..", import.meta.url).pathname;
const server = new MCPServerStdio({
  name: "bench",
  command: process.env.BENCH_BUN ?? "bun",
  args: [`${root}bench/loop/timed-mcp-server.ts`],
  env: { PATH: process.env.PATH ?? "", BENCH_TOOL_TIMES: process.env.BENCH_TOOL_TIMES ?? "" },
  cacheToolsList: true,
});
const client = new OpenAI({ baseURL: url, apiKey: "bench-no-key", maxRetries: 0 });
setDefaultOpenAIClient(client);
setOpenAIAPI("chat_completions");
setTracingDisabled(true);
await server.connect();
const agent = new Agent({
  name: "echoer",
  instructions: "Call the echo tool until the work is done.",
  mcpServers: [server],
  model: new OpenAIChatCompletionsModel(client, "bench-loop"),
});
await serveLoopWorker(
  {
    async run() {
      const r = await run(agent, "Echo ten times.", { maxTurns: 20 });
      if (r.finalOutput !== FINAL_TEXT) throw new Error(`@openai/agents run ended with ${String(r.finalOutput).slice(0, 300)}`);
    },
    close: () => server.close(),
  },
  Number(warmups),
  Number(runs),
);
