/**
 * The peer of `agentd demo`: the same one-shot run built with `@openai/agents` — the same fake gateway
 * (started in-process, playing the demo's script over the chat-completions API) and the same MCP server
 * (the demo's order desk as a stdio child). Prints the final answer; exits 0 on success.
 *
 *   bun bench/peers/openai-agents-oneshot.ts              # or, built for Node: node bench/.build/openai-agents-oneshot.mjs
 *
 * The MCP server is `bun packages/cli/src/main.ts __demo-server` (BENCH_BUN names the bun to use); set
 * BENCH_DEMO_SERVER to a compiled agentd binary to spawn `<binary> __demo-server` instead.
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
import { startFakeGateway } from "@agentd/testkit";
import { DEMO_INSTRUCTION, demoScript } from "../../packages/cli/src/demo/demo-script.ts";

const root = new URL("../..", import.meta.url).pathname;
const compiled = process.env.BENCH_DEMO_SERVER;
const command = compiled ?? process.env.BENCH_BUN ?? "bun";
const args = compiled ? ["__demo-server"] : [`${root}packages/cli/src/main.ts`, "__demo-server"];

const gateway = await startFakeGateway({ dialect: "openai", script: demoScript() });
const server = new MCPServerStdio({ name: "demo", command, args, cwd: root, cacheToolsList: true });
try {
  const client = new OpenAI({ baseURL: gateway.url, apiKey: "bench-no-key", maxRetries: 0 });
  setDefaultOpenAIClient(client);
  setOpenAIAPI("chat_completions");
  setTracingDisabled(true);
  await server.connect();
  const agent = new Agent({
    name: "order-desk",
    instructions: "You are an order-desk assistant. Use the tools to answer; quote the numbers the tools return.",
    mcpServers: [server],
    model: new OpenAIChatCompletionsModel(client, "agentd-demo-scripted"),
  });
  const result = await run(agent, DEMO_INSTRUCTION, { maxTurns: 8 });
  process.stdout.write(`${String(result.finalOutput)}\n`);
} finally {
  await server.close();
  await gateway.close();
}
