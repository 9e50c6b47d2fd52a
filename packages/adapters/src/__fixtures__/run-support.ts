/**
 * Support for the loop-over-gateway tests: a small in-process ToolSet that records what tools were given,
 * the model settings that turn thinking on in each dialect, and the gateways' cleanup.
 */
import { createModel, type CreateModelSettings } from "../create-model.ts";
import type { LanguageModel } from "@agentd/sdk";
import type { ToolDescriptor, ToolSet } from "@agentd/sdk/loop";
import { type Dialect, type FakeGateway, type FakeGatewayOptions, startFakeGateway } from "@agentd/testkit";

/** The tools a weather agent has; every call's arguments are recorded. */
export function weatherTools(): ToolSet & { calls: Array<{ name: string; args: Record<string, unknown> }> } {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  const tools: ToolDescriptor[] = [
    {
      name: "get_weather",
      description: "Weather for a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    { name: "get_time", description: "Local time of a city", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
  ];
  return {
    calls,
    list: async () => tools,
    async call(name, args) {
      calls.push({ name, args });
      return { text: name === "get_weather" ? `${String(args.city)}: 21°C, clear` : `${String(args.city)}: 12:00`, isError: false };
    },
  };
}

/** Thinking switched on the way each dialect takes it. */
export const THINKING: Record<Dialect, CreateModelSettings["thinking"]> = {
  anthropic: { budgetTokens: 1024 },
  gemini: { budgetTokens: 512 },
  openai: { effort: "high", passBack: "reasoning_content" },
  responses: { effort: "high" },
};

/** Gateways started by the current test. */
const open: FakeGateway[] = [];

/** Start a gateway (closed by {@link closeAll}). */
export async function gatewayFor(options: FakeGatewayOptions): Promise<FakeGateway> {
  const gateway = await startFakeGateway(options);
  open.push(gateway);
  return gateway;
}

/** Close every gateway the test started. */
export const closeAll = () => Promise.all(open.splice(0).map((g) => g.close()));

/** A model of `dialect` pointed at `gateway`. */
export const modelFor = (dialect: Dialect, gateway: FakeGateway, extra: Partial<CreateModelSettings> = {}): LanguageModel =>
  createModel({ dialect, baseURL: gateway.url, apiKey: "test-key-123", model: `${dialect}-test`, maxRetries: 0, ...extra });
