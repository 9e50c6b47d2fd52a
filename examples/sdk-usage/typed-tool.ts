/**
 * A tool defined in code, typed from a zod schema, beside an MCP server's tools: the model (a scripted
 * fake gateway speaking the OpenAI Responses API) first calls it with arguments the schema refuses, reads
 * the error, then calls it properly and answers from its result.
 *
 *   bun examples/sdk-usage/typed-tool.ts
 */
import { createModel } from "@agentd/adapters";
import { createAgent, tool } from "@agentd/sdk";
import { startFakeGateway } from "@agentd/testkit";
import { z } from "zod";

const convert = tool({
  name: "convert_temperature",
  description: "Convert a temperature from Celsius to Fahrenheit",
  parameters: z.object({ celsius: z.number().min(-273.15) }),
  outputSchema: z.object({ fahrenheit: z.number() }),
  // `celsius` is a number here: the arguments were validated against the schema before execute runs.
  execute: ({ celsius }) => ({ fahrenheit: Math.round((celsius * 9) / 5 + 32) }),
});

const gateway = await startFakeGateway({
  dialect: "responses",
  script: [
    { toolCalls: [{ name: "convert_temperature", arguments: { celsius: "hot" } }] },
    { toolCalls: [{ name: "convert_temperature", arguments: { celsius: 21 } }] },
    (req) => ({ text: `21°C is ${req.lastToolResult?.match(/"fahrenheit":(\d+)/)?.[1]}°F` }),
  ],
});
const agent = createAgent({
  model: createModel({ dialect: "responses", baseURL: gateway.url, model: "gpt-scripted", apiKey: "not-needed" }),
  tools: [convert],
  onEvent: (e) => e.type === "tool-call-end" && console.error(`tool ${e.qualifiedName}: ${e.isError ? "error" : "ok"}`),
});
try {
  const { text } = await agent.run("What is 21°C in Fahrenheit?");
  console.log(text);
} finally {
  await agent.close();
  await gateway.close();
}
