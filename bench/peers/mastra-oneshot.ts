/**
 * The Mastra peer of `agentd demo`: the same one-shot run built with `@mastra/core` — the same fake gateway
 * (started in-process, playing the demo's script over the chat-completions API, reached through
 * `@ai-sdk/openai-compatible`) and the same MCP server (the demo's order desk as a stdio child, through
 * `@mastra/mcp`'s `MCPClient`). Prints the final answer; exits 0 on success.
 *
 *   bun bench/peers/mastra-oneshot.ts
 *
 * The MCP server is `bun packages/cli/src/main.ts __demo-server` (BENCH_BUN names the bun to use); set
 * BENCH_DEMO_SERVER to a compiled agentd binary to spawn `<binary> __demo-server` instead.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { Agent } from "@mastra/core/agent";
import { MCPClient } from "@mastra/mcp";

// @ai-sdk/openai-compatible builds on @ai-sdk/provider 4.0.38, Mastra's types on its own copy (4.0.17): the
// same LanguageModelV4 at run time, two declarations to the compiler.
type MastraModel = ConstructorParameters<typeof Agent>[0]["model"];
import { startFakeGateway } from "@agentd/testkit";
import { DEMO_INSTRUCTION, demoScript } from "../../packages/cli/src/demo/demo-script.ts";

const root = new URL("../..", import.meta.url).pathname;
const compiled = process.env.BENCH_DEMO_SERVER;
const command = compiled ?? process.env.BENCH_BUN ?? "bun";
const args = compiled ? ["__demo-server"] : [`${root}packages/cli/src/main.ts`, "__demo-server"];

const gateway = await startFakeGateway({ dialect: "openai", script: demoScript() });
const mcp = new MCPClient({ id: "bench-demo", servers: { demo: { command, args, cwd: root } } });
try {
  const provider = createOpenAICompatible({ name: "bench", baseURL: gateway.url, apiKey: "bench-no-key" });
  const agent = new Agent({
    id: "order-desk",
    name: "order-desk",
    instructions: "You are an order-desk assistant. Use the tools to answer; quote the numbers the tools return.",
    model: provider.chatModel("agentd-demo-scripted") as MastraModel,
    tools: await mcp.listTools(),
  });
  const result = await agent.generate(DEMO_INSTRUCTION, { maxSteps: 8 });
  process.stdout.write(`${result.text}\n`);
} finally {
  await mcp.disconnect();
  await gateway.close();
}
