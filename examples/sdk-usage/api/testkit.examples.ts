/**
 * Examples of the testkit's entry points and of `createModel`, type-checked with the repository and run by
 * `api.examples.test.ts`.
 */
import { createModel } from "@agentd/adapters";
import { createAgent } from "@agentd/sdk";
import { createFakeMcpServer, startFakeGateway } from "@agentd/testkit";

/** A scripted model: the fake gateway answers the agent's requests from a script, over real HTTP. */
export async function startFakeGatewayExample(): Promise<string | undefined> {
  // #region startFakeGateway
  const gateway = await startFakeGateway({
    dialect: "openai",
    script: [{ toolCalls: [{ name: "lookup", arguments: { id: "A-7" } }] }, (req) => ({ text: `done: ${req.lastToolResult}` })],
  });
  const model = createModel({ dialect: "openai", baseURL: gateway.url, model: "scripted", apiKey: "not-needed" });
  // … createAgent({ model, tools: [lookup] }) and run it; then:
  await gateway.close();
  // #endregion startFakeGateway
  return model.modelId;
}

/** A fake MCP server in the same process: a client calls its tool and the test reads what it received. */
export async function createFakeMcpServerExample(): Promise<string> {
  // #region createFakeMcpServer
  const fake = createFakeMcpServer({ tools: [{ name: "add", text: "{{a}}+{{b}}" }] });
  const client = await fake.connectInMemory();
  const result = await client.callTool("add", { a: 1, b: 2 });
  const calls = fake.toolCalls("add").length; // 1
  await client.close();
  await fake.close();
  // #endregion createFakeMcpServer
  return `${calls}: ${JSON.stringify(result.content)}`;
}

/** A model for each dialect: the settings name the endpoint, the dialect it speaks and the model. */
export function createModelExample(): string[] {
  // #region createModel
  const local = createModel({ dialect: "openai", baseURL: "http://127.0.0.1:11434/v1", model: "qwen3" });
  const claude = createModel({
    dialect: "anthropic",
    baseURL: "https://api.anthropic.com",
    model: "claude-sonnet-4-5",
    apiKey: process.env.ANTHROPIC_API_KEY,
  });
  const gpt = createModel({
    dialect: "responses",
    baseURL: "https://api.openai.com/v1",
    model: "gpt-5",
    apiKey: process.env.OPENAI_API_KEY,
  });
  // #endregion createModel
  void createAgent;
  return [local.modelId, claude.modelId, gpt.modelId];
}
