/**
 * Testing LLM-calling code against a scripted fake gateway: real HTTP on 127.0.0.1, the model's turns
 * written by the test, every request recorded for assertions. Only `@agentd/testkit` and `fetch`.
 */
import { afterEach, expect, test } from "bun:test";
import { echoLastToolResult, startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { askWeatherBot } from "./weather-bot.ts";

let gateway: FakeGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const config = (url: string) => ({
  baseUrl: url,
  apiKey: "sk-example-secret",
  model: "gpt-example",
  lookUpWeather: (city: string) => `${city}: 18°C, light rain`,
});

test("the bot calls the tool, sends its result back, and returns the model's answer", async () => {
  gateway = await startFakeGateway({
    dialect: "openai",
    requireApiKey: "sk-example-secret",
    script: [
      // Turn 1: the "model" asks for the tool.
      { toolCalls: [{ name: "look_up_weather", arguments: { city: "Paris" } }] },
      // Turn 2: decided when the request arrives, from what the bot sent back.
      echoLastToolResult((result) => `Take an umbrella. (${result})`),
    ],
  });

  const answer = await askWeatherBot(config(gateway.url), "Do I need an umbrella in Paris?");

  expect(answer).toBe("Take an umbrella. (Paris: 18°C, light rain)");
  const [first, second] = gateway.requests;
  expect(first?.tools).toEqual(["look_up_weather"]);
  expect(first?.messages.map((message) => message.role)).toEqual(["system", "user"]);
  expect(second?.messages.at(-1)?.toolResults).toEqual([
    { toolCallId: expect.stringMatching(/^call_/), name: "look_up_weather", content: "Paris: 18°C, light rain" },
  ]);
  // The key was checked by the gateway, and never recorded.
  expect(second?.headers.authorization).toBe("[redacted]");
  expect(JSON.stringify(gateway.requests)).not.toContain("sk-example-secret");
});

test("the bot rides out a rate limit by honouring Retry-After", async () => {
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [{ fault: "rate-limit", retryAfterSeconds: 0 }, { text: "Sunny all day." }],
  });
  expect(await askWeatherBot(config(gateway.url), "Weather in Rome?")).toBe("Sunny all day.");
  expect(gateway.requests).toHaveLength(2);
});

test("a broken upstream surfaces as an error, not a wrong answer", async () => {
  gateway = await startFakeGateway({ dialect: "openai", script: [{ fault: "server-error", status: 503 }] });
  await expect(askWeatherBot(config(gateway.url), "Weather in Oslo?")).rejects.toThrow(/answered 503/);
});
